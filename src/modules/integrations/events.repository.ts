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

  find(integrationId: string, id: string): Promise<IntegrationEvent | null> {
    return this.dataSource.getRepository(IntegrationEvent).findOneBy({ id, integrationId });
  }

  findById(id: string): Promise<IntegrationEvent | null> {
    return this.dataSource.getRepository(IntegrationEvent).findOneBy({ id });
  }

  async record(id: string, changes: Pick<IntegrationEvent, 'status' | 'logs' | 'error' | 'attempts'>): Promise<void> {
    await this.dataSource.getRepository(IntegrationEvent).update({ id }, { ...changes, updatedAt: new Date() });
  }

  /** Newest first, as `gitbook tail` reads them. */
  list(integrationId: string, query: { page?: string; limit: number }): Promise<Page<IntegrationEvent>> {
    const qb = this.dataSource.getRepository(IntegrationEvent).createQueryBuilder('e').where('e.integration_id = :integrationId', { integrationId });
    return paginate<IntegrationEvent>(qb, query, {
      list: 'integration-events:createdAt:desc',
      columns: ['e.created_at', 'e.id'],
      direction: 'DESC',
      keyOf: (row) => [row.createdAt, row.id],
    });
  }
}
