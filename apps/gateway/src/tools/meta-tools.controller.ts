import { createHash } from 'node:crypto';
import { Controller, Get, Headers, Res } from '@nestjs/common';
import { metaToolsDocument } from '@rota/contracts';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/decorators';

// Built once: the document only changes with a release.
const BODY = JSON.stringify(metaToolsDocument());
const ETAG = `"${createHash('sha256').update(BODY).digest('base64url').slice(0, 32)}"`;

function matches(ifNoneMatch: string | undefined): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === ETAG;
  });
}

/** The 15 published meta-tools, readable without a credential from any origin. */
@Controller()
@Public()
export class MetaToolsController {
  @Get(['meta-tools.json', 'v1/meta-tools.json'])
  serve(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply) {
    void reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300').header('etag', ETAG);
    if (matches(ifNoneMatch)) return reply.status(304).send();
    return reply.status(200).header('content-type', 'application/json; charset=utf-8').send(BODY);
  }
}
