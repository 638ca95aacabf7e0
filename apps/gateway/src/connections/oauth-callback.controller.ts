import { Controller, Res } from '@nestjs/common';
import { AppError, ROUTES, type OAuthCallbackView } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Input, Route, type In } from '../http/route';

/**
 * Where a provider's authorization page sends the user back. A browser
 * follows this redirect, so no API key comes with it: the session service
 * verifies the signed, single-use state and acts for the tenant it names.
 */
@Controller()
export class OAuthCallbackController {
  constructor(private readonly rpc: RpcClient) {}

  /** 303 to the flow's `return_to` when it has one (connected or not); otherwise JSON, or the error. */
  @Route(ROUTES.oauthCallback)
  async oauthCallback(
    @Input() { query }: In<typeof ROUTES.oauthCallback>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OAuthCallbackView | undefined> {
    // The URL carries a one-time code: nothing may cache it or pass it on as a referrer.
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    const out = await this.rpc.send('session.connections.oauth_callback', {
      state: query.state,
      ...(query.code !== undefined ? { code: query.code } : {}),
      ...(query.error !== undefined ? { error: query.error } : {}),
    });
    if (out.return_to) {
      const back = new URL(out.return_to);
      back.searchParams.set('status', out.status);
      back.searchParams.set('server_id', out.server_id);
      back.searchParams.set('context_id', out.context_id);
      if (out.error) back.searchParams.set('error', out.error);
      void reply.status(303).header('location', back.toString());
      return undefined;
    }
    if (out.status === 'failed') throw new AppError(out.error ?? 'oauth_authorization_failed', out.message);
    return {
      status: 'connected',
      server_id: out.server_id,
      environment: out.environment,
      context_id: out.context_id,
      message: out.message,
    };
  }
}
