import { createHash } from 'node:crypto';
import { Controller, Headers, Res } from '@nestjs/common';
import { metaToolsDocument, ROUTES } from '@rota/contracts';
import type { FastifyReply } from 'fastify';
import { Route } from '../http/route';

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
export class MetaToolsController {
  @Route(ROUTES.getMetaTools)
  getMetaTools(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply) {
    return this.serve(ifNoneMatch, reply);
  }

  @Route(ROUTES.getMetaToolsV1)
  getMetaToolsV1(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply) {
    return this.serve(ifNoneMatch, reply);
  }

  private serve(ifNoneMatch: string | undefined, reply: FastifyReply) {
    void reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=300')
      .header('etag', ETAG);
    if (matches(ifNoneMatch)) return reply.status(304).send();
    return reply.status(200).header('content-type', 'application/json; charset=utf-8').send(BODY);
  }
}
