import { resolveProviderUrl, type CallLookupAnswer, type CallLookupCommand, type ProviderAuth } from '@rota/contracts';
import { ProviderError } from '@rota/providers';
import { currentTenant } from '@rota/service-kit';
import type { ConnectionsService } from '../connections/connections.service';
import type { CallLookupRepository } from './call-lookup.repository';
import type { ProviderCallsRepository } from '../calls/provider-calls.repository';
import type { ProviderClients } from '../connections/clients';
import { sameOrigin } from './provider-calls.service';

/**
 * `session.calls.lookup`: asks a provider what a request Rota sent under an
 * idempotency key made, for the reconcile sweep. Only reads: one GET to the
 * provider's lookup endpoint (catalog `http.lookup_by_idempotency_key`) with
 * the connection's credentials; nothing is written here, the sweep records
 * what it learnt. Rail calls (acting meta-tools) are not looked up: their row
 * may name several providers and their answer has the meta-tool's shape.
 */
export class CallLookupService {
  constructor(
    private readonly calls: CallLookupRepository,
    private readonly providers: ProviderCallsRepository,
    private readonly connections: ConnectionsService,
    private readonly clients: ProviderClients,
  ) {}

  async lookup(cmd: CallLookupCommand): Promise<CallLookupAnswer> {
    const tenant = currentTenant();
    const call = await this.calls.call(cmd.tool_call_id, tenant);
    if (!call) return { outcome: 'not_supported', reason: 'No such call in this project and environment.' };
    if (call.state !== 'pending' && call.state !== 'outcome_unknown')
      return { outcome: 'not_supported', reason: `The call is ${call.state}, neither pending nor of unknown outcome.` };
    if (call.railId) return { outcome: 'not_supported', reason: 'Calls through a rail are not looked up.' };
    if (!call.server || !call.providerIdempotencyKey)
      return { outcome: 'not_supported', reason: 'The call carried no idempotency key to a provider.' };

    const provider = await this.providers.providerForCall(call.server, tenant.project_id);
    const lookup = provider?.http?.lookup_by_idempotency_key;
    const baseUrl = provider?.baseUrls[tenant.environment];
    if (!provider?.http || !lookup || !baseUrl)
      return { outcome: 'not_supported', reason: `The catalog gives ${call.server} no lookup by idempotency key.` };

    let credentials: Record<string, string> = {};
    if (provider.http.auth.type !== 'none') {
      const stored = await this.connections.connectionFor(tenant.project_id, tenant.environment, call.server);
      if (!stored) return { outcome: 'failed', reason: `No ${tenant.environment} connection for ${call.server}.` };
      if (!sameOrigin(stored.origin, baseUrl))
        return {
          outcome: 'failed',
          reason: `The ${tenant.environment} connection for ${call.server} was made for another address.`,
        };
      credentials = stored.credentials;
    }
    const http = provider.http;
    // As for the call itself: an OAuth2 token URL may be a path under the environment's base URL.
    const auth: ProviderAuth =
      http.auth.type === 'oauth2'
        ? {
            ...http.auth,
            token_url: resolveProviderUrl(http.auth.token_url, baseUrl),
            ...(http.auth.authorize_url ? { authorize_url: resolveProviderUrl(http.auth.authorize_url, baseUrl) } : {}),
          }
        : http.auth;
    const url = `${baseUrl.replace(/\/+$/, '')}${lookup.endpoint_template.replaceAll('{idempotency_key}', encodeURIComponent(call.providerIdempotencyKey))}`;
    const client = tenant.environment === 'test' ? this.clients.test : this.clients.live;
    try {
      // No idempotency header: a GET is no new request, and the key names the first one.
      const r = await client.call({
        providerId: call.server,
        providerOwner: provider.owner,
        request: { url, method: lookup.method, headers: { accept: 'application/json' } },
        auth,
        credentials,
        tenant,
        connectionId: `${tenant.environment}:${call.server}`,
        operation: 'calls.lookup',
        route: lookup.endpoint_template,
      });
      if (r.kind !== 'response') return { outcome: 'failed', reason: `The lookup got no answer (${r.reason}).` };
      if (r.status >= 200 && r.status < 300)
        return { outcome: 'found', status: r.status, headers: r.headers, body: r.body };
      if (r.status === 404) return { outcome: 'not_found', status: 404 };
      return { outcome: 'failed', reason: `The provider answered the lookup ${r.status}.` };
    } catch (err) {
      if (err instanceof ProviderError) return { outcome: 'failed', reason: err.message };
      throw err;
    }
  }
}
