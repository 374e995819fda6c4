import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { catchError, concatMap, from, Observable, throwError } from 'rxjs';
import { inReadScope, inWriteScope, ReadReplicas } from './read-replicas';

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
 * checks read the primary), and after any other request that may write records the primary's WAL
 * position for its token and its space before the answer leaves, so the next read by that token or of
 * that space waits for a replica that has replayed it. Registered only when replicas are configured.
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
    const keys = writeKeys(request);
    // Declared on the route (GET, or a POST that only queries, such as an aggregate).
    if (this.reflector.getAllAndOverride<boolean>(READ_FROM_REPLICA, [context.getHandler(), context.getClass()])) {
      return inReadScope(keys, () => next.handle());
    }
    if (keys.length === 0 || SAFE_METHODS.has(request.method)) return next.handle();
    // A request that may have written (successfully or not: a failure may follow a commit).
    return inWriteScope(keys, () => next.handle()).pipe(
      concatMap((value) => from(this.replicas.recordWrite([...keys, ...answeredSpace(value)]).then(() => value))),
      catchError((error: unknown) => from(this.replicas.recordWrite(keys)).pipe(concatMap(() => throwError(() => error)))),
    );
  }
}

/** A space the write answers with (a created or duplicated space): readers of it must see the write too. */
function answeredSpace(value: unknown): string[] {
  const body = value as { object?: unknown; id?: unknown } | null | undefined;
  return body?.object === 'space' && typeof body.id === 'string' ? [`space:${body.id}`] : [];
}

/** Whose writes a request makes or must see: its token's, and the space its path names. */
function writeKeys(request: Request): string[] {
  const keys: string[] = [];
  if (request.bearerTokenHash) keys.push(`token:${request.bearerTokenHash}`);
  const spaceId = (request.params as Record<string, string | undefined>).spaceId;
  if (typeof spaceId === 'string') keys.push(`space:${spaceId}`);
  return keys;
}
