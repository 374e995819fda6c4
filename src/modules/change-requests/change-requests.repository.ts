import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, paginate } from '../../common/pagination/paginate';
import { User } from '../users/user.entity';
import { ChangeRequestContributor } from './change-request-contributor.entity';
import { ChangeRequest, ChangeRequestStatus } from './change-request.entity';
import type { ListChangeRequestsQueryDto } from './dto/list-change-requests-query.dto';
import type { TreePage } from './authoring/tree-editor';

/** Every query of change requests and their contributors. */
@Injectable()
export class ChangeRequestsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** By id or by number in the space (`changeRequestId` is either, section 4.1); `lock` takes the row for the transaction. */
  find(spaceId: string, idOrNumber: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<ChangeRequest | null> {
    const qb = manager.createQueryBuilder(ChangeRequest, 'cr').where('cr.space_id = :spaceId', { spaceId });
    if (/^[1-9][0-9]{0,8}$/.test(idOrNumber)) qb.andWhere('cr.number = :number', { number: Number(idOrNumber) });
    else qb.andWhere('cr.id = :id', { id: idOrNumber });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  async insert(changeRequest: Omit<ChangeRequest, 'createdAt' | 'updatedAt' | 'openComments'>, manager: EntityManager): Promise<ChangeRequest> {
    await manager.insert(ChangeRequest, changeRequest);
    return manager.findOneByOrFail(ChangeRequest, { id: changeRequest.id });
  }

  async update(id: string, changes: Partial<ChangeRequest>, manager: EntityManager): Promise<ChangeRequest> {
    await manager.update(ChangeRequest, { id }, { ...changes, updatedAt: () => 'now()' } as object);
    return manager.findOneByOrFail(ChangeRequest, { id });
  }

  async addContributor(changeRequestId: string, userId: string, manager: EntityManager): Promise<void> {
    await manager.query(`INSERT INTO change_request_contributors (change_request_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      changeRequestId,
      userId,
    ]);
  }

  /** Newest first; keyset on (created_at, id). */
  list(spaceId: string, status: ChangeRequestStatus, query: ListChangeRequestsQueryDto): Promise<Page<ChangeRequest>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(ChangeRequest, 'cr')
      .where('cr.space_id = :spaceId', { spaceId })
      .andWhere('cr.status = :status', { status });
    if (query.creator) qb.andWhere('cr.created_by = :creator', { creator: query.creator });
    if (query.contributor) {
      const sub = qb
        .subQuery()
        .select('1')
        .from(ChangeRequestContributor, 'c')
        .where('c.change_request_id = cr.id')
        .andWhere('c.user_id = :contributor')
        .getQuery();
      qb.andWhere(`EXISTS ${sub}`, { contributor: query.contributor });
    }
    return paginate<ChangeRequest>(qb, query, {
      list: 'change-requests:created:desc',
      columns: ['cr.created_at', 'cr.id'],
      direction: 'DESC',
      keyOf: (cr) => [cr.createdAt, cr.id],
    });
  }

  /**
   * A revision's tree rows as plain objects (no entity hydration: a merge reads three trees of the
   * space's size), ordered like `ContentRepository.tree`.
   */
  async treeRows(revisionId: string, manager: EntityManager): Promise<TreePage[]> {
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT page_id, parent_id, position, kind, title, emoji, icon, slug, description, layout, cover, hidden, no_index,
              no_robots_index, variables, document_id, link_target, computed, created_at, updated_at
         FROM revision_pages WHERE revision_id = $1 ORDER BY parent_id, position`,
      [revisionId],
    );
    return rows.map((row) => ({
      pageId: row.page_id,
      parentId: row.parent_id,
      position: row.position,
      kind: row.kind,
      title: row.title,
      emoji: row.emoji,
      icon: row.icon,
      slug: row.slug,
      description: row.description,
      layout: row.layout,
      cover: row.cover,
      hidden: row.hidden,
      noIndex: row.no_index,
      noRobotsIndex: row.no_robots_index,
      variables: row.variables,
      documentId: row.document_id,
      linkTarget: row.link_target,
      computed: row.computed,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })) as TreePage[];
  }

  async users(ids: (string | null)[]): Promise<Map<string, User>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const users = await this.dataSource.manager.find(User, { where: { id: In(wanted) } });
    return new Map(users.map((user) => [user.id, user]));
  }
}
