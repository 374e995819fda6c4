import { Injectable, Logger, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
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

@Module({
  providers: [IdempotencyRepository, IdempotencyCommitSubscriber, IdempotencyPurgeJob, { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }],
})
export class IdempotencyModule {}
