import { Injectable, Logger, Module } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyCommitSubscriber } from './idempotency.subscriber';

/** Expired keys go every 15 minutes, in batches; every replica may run it (deletes are idempotent). */
@Injectable()
export class IdempotencyPurgeJob {
  private readonly logger = new Logger('Idempotency');

  constructor(private readonly keys: IdempotencyRepository) {}

  @Interval('purge-idempotency-keys', 15 * 60 * 1000)
  async purge(): Promise<void> {
    try {
      let deleted: number;
      do deleted = await this.keys.purgeExpired();
      while (deleted > 0);
    } catch (error) {
      this.logger.warn({ msg: 'idempotency purge failed', err: error });
    }
  }
}

/** The interceptor is bound to the routes it can act on by `bindIdempotency` (idempotency.routes.ts), not globally. */
@Module({
  providers: [IdempotencyRepository, IdempotencyCommitSubscriber, IdempotencyPurgeJob, IdempotencyInterceptor],
  exports: [IdempotencyInterceptor],
})
export class IdempotencyModule {}
