import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError, type Tenant } from '@rota/contracts';

/** What travels with one request across the gateway and the services. */
export interface RequestContext {
  requestId: string;
  /** Epoch ms after which nobody is waiting for the answer any more. */
  deadline?: number;
  /**
   * Who the request acts for. The gateway sets it once the key is verified;
   * the transport carries it in the envelope; services read it with
   * `currentTenant()`.
   */
  tenant?: Tenant;
  /**
   * The address clients reach the gateway at (`ROTA_PUBLIC_URL`, or the
   * gateway's own listening address), set by the gateway on each request and
   * carried to the services, which build URLs handed back to browsers from it
   * (OAuth redirect URIs).
   */
  publicUrl?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** The gateway's public base URL for the request being handled, when it came through the gateway. */
export function currentPublicUrl(): string | undefined {
  return requestContext.getStore()?.publicUrl;
}

/** The tenant of the request being handled, when it has one. */
export function maybeTenant(): Tenant | undefined {
  return requestContext.getStore()?.tenant;
}

/**
 * The tenant of the request being handled. A tenant-scoped handler reached
 * without one is a wiring bug, never a caller's mistake.
 */
export function currentTenant(): Tenant {
  const tenant = requestContext.getStore()?.tenant;
  if (!tenant) throw new AppError('internal', 'This request carries no tenant.');
  return tenant;
}

/**
 * Refuses to go on once the caller's deadline (carried by the transport) has
 * passed: nobody waits for the answer, and whatever happens next would happen
 * behind the caller's back. Call it only where nothing has taken effect yet,
 * since the refusal says so (`unavailable`).
 */
export function beforeDeadline(): void {
  const deadline = requestContext.getStore()?.deadline;
  if (deadline !== undefined && Date.now() > deadline) {
    throw new AppError('unavailable', 'The request passed its deadline before it ran; nothing was done.');
  }
}
