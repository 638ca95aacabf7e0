import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { isJsonParseFailure, isMcpRequest, jsonRpcError, PARSE_ERROR_BODY } from '../mcp/mcp-protocol';
import { toHttpError } from './errors';
import { redactUrl } from './redact';

/** Renders every refusal raised inside Nest's pipeline in the standard envelope. */
@Catch()
export class EnvelopeFilter implements ExceptionFilter {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // MCP clients read JSON-RPC: a body that is not JSON is a parse error there, not the REST envelope.
    if (isJsonParseFailure(exception) && isMcpRequest(req)) {
      void reply.status(400).header('content-type', 'application/json; charset=utf-8').send(PARSE_ERROR_BODY);
      return;
    }
    const out = toHttpError(exception, String(req.id));
    // Any other 400 there (a NUL or a lone surrogate in the body, a bad query)
    // is an invalid request to an MCP client, and a body that is not JSON is
    // refused as the MCP SDK itself words it.
    if ((out.status === 400 || out.status === 415) && isMcpRequest(req)) {
      const message = typeof out.body.message === 'string' ? out.body.message : 'The request is invalid.';
      const body =
        out.status === 415
          ? jsonRpcError(null, -32000, 'Unsupported Media Type: Content-Type must be application/json')
          : jsonRpcError(null, -32600, `Invalid Request: ${message}`);
      void reply.status(out.status).header('content-type', 'application/json; charset=utf-8').send(body);
      return;
    }
    // The URL is masked as in the access log: a key sent in the query string must not reach the log here either.
    if (out.unexpected)
      this.log.error({ err: out.unexpected, request_id: req.id, route: redactUrl(req.url) }, 'unhandled error');
    if (out.dependency)
      this.log.warn(
        { err: out.dependency, request_id: req.id, route: redactUrl(req.url) },
        'dependency connection failed',
      );
    // RFC 9110: a 401 names the scheme the client should use.
    if (out.status === 401) void reply.header('www-authenticate', 'Bearer');
    void reply
      .status(out.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(out.body));
  }
}
