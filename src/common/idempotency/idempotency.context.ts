import { AsyncLocalStorage } from 'node:async_hooks';

/** The idempotency key a request runs under; read by the commit hook of every transaction the request opens. */
export interface IdempotencyScope {
  caller: string;
  key: string;
}

export const idempotencyScope = new AsyncLocalStorage<IdempotencyScope>();
