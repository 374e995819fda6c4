import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { paginate, Page } from '../../common/pagination/paginate';
import { IntegrationEvent } from './integration-event.entity';

/** Every query of integration events. */
@Injectable()
export class EventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(event: Pick<IntegrationEvent, 'id' | 'integrationId' | 'installationId' | 'payload'>, manager: EntityManager): Promise<void> {
    await manager.getRepository(IntegrationEvent).insert({ ...event, status: 'pending', logs: [], error: null, attempts: 0 } as never);
  }

  /** An event that was handled (an event still `pending` has no public status yet). */
  find(integrationId: string, id: string): Promise<IntegrationEvent | null> {
    return this.dataSource
      .getRepository(IntegrationEvent)
      .createQueryBuilder('e')
      .where('e.id = :id AND e.integration_id = :integrationId', { id, integrationId })
      .andWhere("e.status <> 'pending'")
      .getOne();
  }

  /** Stores a call that ran at once (render, public endpoint, script fetch) with its outcome and logs. */
  async insertHandled(event: Pick<IntegrationEvent, 'id' | 'integrationId' | 'installationId' | 'payload' | 'status' | 'logs' | 'error'>): Promise<void> {
    await this.dataSource.getRepository(IntegrationEvent).insert({ ...event, attempts: 1 } as never);
  }

  /** Deletes events created before `before`, at most `batch` of them; answers how many went. */
  async purgeBefore(before: Date, batch: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM integration_events WHERE id IN (SELECT id FROM integration_events WHERE created_at < $1 LIMIT $2)`,
      [before, batch],
    );
    return result[1];
  }

  findById(id: string): Promise<IntegrationEvent | null> {
    return this.dataSource.getRepository(IntegrationEvent).findOneBy({ id });
  }

  async record(id: string, changes: Pick<IntegrationEvent, 'status' | 'logs' | 'error' | 'attempts'>): Promise<void> {
    await this.dataSource.getRepository(IntegrationEvent).update({ id }, { ...changes, updatedAt: new Date() });
  }

  /** Newest first, as `gitbook tail` reads them; only handled events (the public status is `success` or `failed`). */
  list(integrationId: string, query: { page?: string; limit: number }): Promise<Page<IntegrationEvent>> {
    const qb = this.dataSource
      .getRepository(IntegrationEvent)
      .createQueryBuilder('e')
      .where('e.integration_id = :integrationId', { integrationId })
      .andWhere("e.status <> 'pending'");
    return paginate<IntegrationEvent>(qb, query, {
      list: 'integration-events:createdAt:desc',
      columns: ['e.created_at', 'e.id'],
      direction: 'DESC',
      keyOf: (row) => [row.createdAt, row.id],
    });
  }
}
