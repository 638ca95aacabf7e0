import { Controller, Res } from '@nestjs/common';
import { ROUTES, type FxImportResult, type FxRatesList, type HealthHistory, type HealthReport } from '@rota/contracts';
import { renderMetrics, RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Input, Route, type In } from '../http/route';

/** Prometheus metrics of this process, the health rollup (evaluated by the worker) and exchange rates. */
@Controller()
export class OperationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Route(ROUTES.getMetrics)
  async getMetrics(@Res() reply: FastifyReply) {
    const { contentType, body } = await renderMetrics();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  }

  @Route(ROUTES.getHealth)
  getHealth(): Promise<HealthReport> {
    return this.rpc.send('worker.health', {});
  }

  @Route(ROUTES.getHealthHistory)
  getHealthHistory(@Input() { query }: In<typeof ROUTES.getHealthHistory>): Promise<HealthHistory> {
    return this.rpc.send('worker.health.history', query);
  }

  @Route(ROUTES.listFxRates)
  listFxRates(): Promise<FxRatesList> {
    return this.rpc.send('worker.fx.list', {});
  }

  @Route(ROUTES.importFxRates)
  importFxRates(@Input() { body }: In<typeof ROUTES.importFxRates>): Promise<FxImportResult> {
    return this.rpc.send('worker.fx.import', body);
  }
}
