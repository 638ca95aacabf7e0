import type { Environment, Scope } from '@rota/contracts';

/** Who is calling: the key's tenant and what it may do. */
export interface Principal {
  keyId: string;
  orgId: string;
  projectId: string;
  environment: Environment;
  scopes: Scope[];
}
