import {
  BadRequestException,
  CallHandler,
  ConflictException,
  ExecutionContext,
  HttpStatus,
  Injectable,
  Logger,
  NestInterceptor,
  UnprocessableEntityException,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { isDatabaseOutage } from '../errors/classify-error';
import { idempotencyScope } from './idempotency.context';
import { IDEMPOTENCY_LEASE_SECONDS, IdempotencyRepository } from './idempotency.repository';

/** The header a retry's answer carries when it is the kept answer of its key, the handler not run. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Printable ASCII without spaces, as in the IETF draft's examples (UUIDs, ULIDs, random strings). */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on creates (POST routes answering 201). The first request with a key runs and
 * its answer (status, body, Location) is kept 24 hours per caller; a retry with the same key and
 * the same request gets that answer again (`Idempotent-Replayed: true`) without running; the same
 * key with another request → 422; a retry while the first is still running → 409. Requests
 * without the header are untouched. Runs after the bearer guard (the caller is known) and before
 * validation (the fingerprint is of the body as sent).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: IdempotencyRepository,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const header = request.headers['idempotency-key'];
    if (header === undefined || request.method !== 'POST') return next.handle();
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    if (status !== HttpStatus.CREATED || !request.user) return next.handle();
    if (typeof header !== 'string' || !KEY_FORMAT.test(header)) {
      throw new BadRequestException('Idempotency-Key must be 1 to 255 printable ASCII characters without spaces');
    }

    const scope = { caller: request.user.id, key: header };
    const claim = await this.keys.claim(scope.caller, scope.key, fingerprintOf(request));
    switch (claim.kind) {
      case 'mismatch':
        throw new UnprocessableEntityException('This Idempotency-Key was already used for a different request');
      case 'in_flight':
        throw new ConflictException('A request with this Idempotency-Key is still in progress; retry later');
      case 'lost':
        throw new ConflictException(
          'A request with this Idempotency-Key was applied, but its answer was lost in a database outage; look the resource up instead of retrying',
        );
      case 'replay':
        response.status(claim.answer.status);
        if (claim.answer.location) response.setHeader('Location', claim.answer.location);
        response.setHeader(REPLAYED_HEADER, 'true');
        return of(claim.answer.body);
      case 'claimed':
        return this.run(scope, status, response, next);
    }
  }

  /** Runs the handler under the key (its commits mark the key), then records the answer or frees the key. */
  private run(scope: { caller: string; key: string }, status: number, response: Response, next: CallHandler): Observable<unknown> {
    const handled = idempotencyScope.observe(scope, () => next.handle());
    const lease = setInterval(() => void this.keys.extend(scope.caller, scope.key).catch(() => undefined), (IDEMPOTENCY_LEASE_SECONDS * 1000) / 3);
    lease.unref();
    const finish = async (): Promise<unknown> => {
      try {
        const body = await lastValue(handled);
        const location = response.getHeader('Location');
        try {
          await this.keys.complete(scope.caller, scope.key, { status, body, location: typeof location === 'string' ? location : null });
        } catch (error) {
          // The resource exists: answer it. A retry will find the key `committed` and not create twice.
          this.logger.warn({ msg: 'idempotent answer not recorded', err: error });
          await this.keys.endLease(scope.caller, scope.key).catch(() => undefined);
        }
        return body;
      } catch (error) {
        // Only an attempt that committed nothing is freed; one that committed keeps its key.
        await this.keys.release(scope.caller, scope.key).catch((releaseError: unknown) => {
          if (!isDatabaseOutage(releaseError)) this.logger.warn({ msg: 'idempotency key not released', err: releaseError });
        });
        throw error;
      } finally {
        clearInterval(lease);
      }
    };
    return from(finish());
  }
}

function lastValue(source: Observable<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let value: unknown;
    source.subscribe({ next: (v) => (value = v), error: reject, complete: () => resolve(value) });
  });
}

/** What makes two requests "the same": route, query and body (object keys in sorted order). */
function fingerprintOf(request: Request): string {
  return createHash('sha256').update(`${request.method} ${request.originalUrl}\n`).update(stableJson(request.body)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
