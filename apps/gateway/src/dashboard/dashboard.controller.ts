import { Controller, Req, Res } from '@nestjs/common';
import { AppError, DASHBOARD_PAGES, ROUTES, type Tenant } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal';
import { Input, Route, type In } from '../http/route';
import { DashboardSessions } from './dashboard-sessions';
import { dashboardPage } from './pages';

const PAGES = new Map(DASHBOARD_PAGES.map((p) => [p, dashboardPage(p)]));

const tenantOf = (p: Principal): Tenant | undefined =>
  p.kind === 'project' ? { org_id: p.orgId, project_id: p.projectId, environment: p.environment } : undefined;

/** The dashboard pages, the key-for-cookie exchange and the data the pages read, all for the cookie's key. */
@Controller()
export class DashboardController {
  constructor(
    private readonly sessions: DashboardSessions,
    private readonly rpc: RpcClient,
  ) {}

  private page(reply: FastifyReply, page: (typeof DASHBOARD_PAGES)[number]) {
    const { html, csp } = PAGES.get(page)!;
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(html);
  }

  @Route(ROUTES.getDashboardHealth)
  health(@Res() reply: FastifyReply) {
    return this.page(reply, 'health');
  }

  @Route(ROUTES.getDashboardTriggers)
  triggers(@Res() reply: FastifyReply) {
    return this.page(reply, 'triggers');
  }

  @Route(ROUTES.getDashboardRouter)
  router(@Res() reply: FastifyReply) {
    return this.page(reply, 'router');
  }

  @Route(ROUTES.getDashboardCandidates)
  candidates(@Res() reply: FastifyReply) {
    return this.page(reply, 'router-candidates');
  }

  @Route(ROUTES.getDashboardQueues)
  queues(@Res() reply: FastifyReply) {
    return this.page(reply, 'queues');
  }

  @Route(ROUTES.createDashboardSession)
  async session(
    @Input() { body }: In<typeof ROUTES.createDashboardSession>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    void reply.header('set-cookie', await this.sessions.open(body.key, req.ip)).header('cache-control', 'no-store');
  }

  @Route(ROUTES.getDashboardData)
  async data(
    @Input() { params }: In<typeof ROUTES.getDashboardData>,
    @Req() req: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    const principal = await this.sessions.principal(req.headers.cookie);
    const tenant = tenantOf(principal);
    // Each view needs the scope of the API route it mirrors.
    const scope = params.view === 'triggers' ? 'webhooks:write' : params.view === 'queues' ? 'admin' : 'servers:read';
    if (!principal.scopes.includes(scope))
      throw new AppError('forbidden', `API key does not have the '${scope}' scope.`);
    switch (params.view) {
      case 'health':
        return this.rpc.send('worker.health', {}, { tenant });
      case 'router':
        if (!tenant) throw new AppError('forbidden', 'Router metrics belong to a project: sign in with a project key.');
        return this.rpc.send('router.metrics', {}, { tenant });
      case 'triggers': {
        const { webhooks } = await this.rpc.send('worker.webhooks.list', {}, { tenant });
        const withDeliveries = await Promise.all(
          webhooks.map(async (w) => ({
            ...w,
            deliveries: (
              await this.rpc.send('worker.webhooks.deliveries', { id: w.id, query: { limit: 5 } }, { tenant })
            ).deliveries,
          })),
        );
        return { webhooks: withDeliveries };
      }
      case 'queues':
        if (principal.kind !== 'operator') throw new AppError('forbidden', 'The queue dashboard is for operator keys.');
        return this.rpc.send('worker.queues', {});
    }
  }
}
