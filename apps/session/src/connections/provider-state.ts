import type { ConnectionStatus, ProviderConnection } from '@rota/contracts';

/** A provider as seen from one project and environment. */
export interface ProviderState {
  id: string;
  name: string;
  category: string;
  authType: string;
  status: ConnectionStatus;
  connectedAt: Date | null;
}

/** One provider's row in `codespar_manage_connections`. */
export function providerConnection(p: ProviderState): ProviderConnection {
  return {
    server_id: p.id,
    name: p.name,
    category: p.category,
    auth_type: p.authType,
    status: p.status,
    connected_at: p.connectedAt?.toISOString() ?? null,
  };
}
