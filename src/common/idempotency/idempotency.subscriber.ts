import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { idempotencyScope } from './idempotency.context';
import { IdempotencyRepository } from './idempotency.repository';

/**
 * Marks the request's key `committed` inside each transaction it commits, atomically with the
 * write. If the database then goes away before the answer is recorded, a retry finds the mark and
 * does not create a second resource; without the mark it knows nothing was written and may run again.
 */
@Injectable()
export class IdempotencyCommitSubscriber implements EntitySubscriberInterface, OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: IdempotencyRepository,
  ) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this);
  }

  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const scope = idempotencyScope.getStore();
    if (scope) await this.keys.markCommitted(event.manager, scope.caller, scope.key);
  }
}
