import { ScopedStorage } from '../async/scoped-storage';

/** The idempotency key a request runs under; read by the commit hook of every transaction the request opens. */
export interface IdempotencyScope {
  caller: string;
  key: string;
}

export const idempotencyScope = new ScopedStorage<IdempotencyScope>();
