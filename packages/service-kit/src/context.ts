import { AsyncLocalStorage } from 'node:async_hooks';

/** What travels with one request across the gateway and the services. */
export interface RequestContext {
  requestId: string;
  /** Epoch ms after which nobody is waiting for the answer any more. */
  deadline?: number;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
