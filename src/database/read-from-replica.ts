import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { catchError, concatMap, from, Observable, throwError } from 'rxjs';
import { inReadScope, ReadReplicas } from './read-replicas';

const READ_FROM_REPLICA = 'quire:readFromReplica';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The route only reads, and tolerates a replica's lag: its reads outside a transaction may run on a
 * streaming replica (DATABASE_READ_URLS), except for a caller whose own recent write the replicas have
 * not replayed yet. Put it on lists, search, content reads and aggregates; never on a route that writes.
 */
export const ReadFromReplica = () => SetMetadata(READ_FROM_REPLICA, true);

/**
 * Opens the read scope of a `@ReadFromReplica()` route (after the guards: authentication and access
 * checks read the primary), and after any other request by a token records the primary's WAL position
 * for that token before the answer leaves, so its next read waits for a replica that has replayed it.
 * Registered only when replicas are configured.
 */
@Injectable()
export class ReadReplicaInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly replicas: ReadReplicas,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    const key = request.bearerTokenHash;
    const scoped = this.reflector.getAllAndOverride<boolean>(READ_FROM_REPLICA, [context.getHandler(), context.getClass()]);
    if (scoped && SAFE_METHODS.has(request.method)) return inReadScope(key, () => next.handle());
    if (!key || SAFE_METHODS.has(request.method)) return next.handle();
    // A request that may have written (successfully or not: a failure may follow a commit).
    return next.handle().pipe(
      concatMap((value) => from(this.record(key).then(() => value))),
      catchError((error: unknown) => from(this.record(key)).pipe(concatMap(() => throwError(() => error)))),
    );
  }

  private record(key: string): Promise<void> {
    return this.replicas.recordWrite(key);
  }
}
