import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { TranslationSettings } from './translation-settings.entity';

@Injectable()
export class TranslationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(organizationId: string, id: string): Promise<TranslationSettings | null> {
    return this.dataSource.manager.findOneBy(TranslationSettings, { organizationId, id });
  }

  /** Oldest first. */
  list(organizationId: string, query: ListQueryDto): Promise<Page<TranslationSettings>> {
    const qb = this.dataSource.manager.createQueryBuilder(TranslationSettings, 's').where('s.organization_id = :organizationId', { organizationId });
    return paginate<TranslationSettings>(qb, query, {
      list: 'translations:createdAt:asc',
      columns: ['s.created_at', 's.id'],
      direction: 'ASC',
      keyOf: (settings) => [settings.createdAt, settings.id],
    });
  }

  async insert(settings: Pick<TranslationSettings, 'id' | 'organizationId' | 'title' | 'languages'>): Promise<void> {
    await this.dataSource.manager.insert(TranslationSettings, settings);
  }

  async update(id: string, changes: Partial<Pick<TranslationSettings, 'title' | 'languages'>>): Promise<void> {
    await this.dataSource.manager.update(TranslationSettings, { id }, changes);
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.manager.delete(TranslationSettings, { id });
  }
}
