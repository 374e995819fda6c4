import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { SamlProvider } from './saml-provider.entity';

/** The SSO login list is not paginated (the public description has no page parameters): it is capped instead. */
export const MAX_SSO_LOGINS = 1000;

@Injectable()
export class SamlRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(organizationId: string, id: string): Promise<SamlProvider | null> {
    return this.dataSource.manager.findOneBy(SamlProvider, { organizationId, id });
  }

  /** Oldest first. */
  list(organizationId: string, query: ListQueryDto): Promise<Page<SamlProvider>> {
    const qb = this.dataSource.manager.createQueryBuilder(SamlProvider, 'p').where('p.organization_id = :organizationId', { organizationId });
    return paginate<SamlProvider>(qb, query, {
      list: 'saml:createdAt:asc',
      columns: ['p.created_at', 'p.id'],
      direction: 'ASC',
      keyOf: (provider) => [provider.createdAt, provider.id],
    });
  }

  /** Providers members can sign in with: the `active` ones (a `pending` provider is not configured yet). */
  listActive(organizationId: string): Promise<SamlProvider[]> {
    return this.dataSource.manager.find(SamlProvider, {
      where: { organizationId, status: 'active' },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: MAX_SSO_LOGINS,
    });
  }

  async insert(provider: Omit<SamlProvider, 'createdAt' | 'updatedAt' | 'status'>): Promise<void> {
    await this.dataSource.manager.insert(SamlProvider, provider);
  }

  async update(id: string, changes: Partial<SamlProvider>): Promise<void> {
    if (Object.keys(changes).length > 0) await this.dataSource.manager.update(SamlProvider, { id }, changes);
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.manager.delete(SamlProvider, { id });
  }
}
