import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { OpenApiSpecContent } from './openapi-spec-content.entity';
import { OpenApiSpecVersion } from './openapi-spec-version.entity';
import { OpenApiSpec } from './openapi-spec.entity';
import type { ContentProblems, LoadedSpec } from './openapi-spec.read-model';

/** Every query of specs, their versions and the versions' stored content. */
@Injectable()
export class OpenApiSpecsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findSpec(organizationId: string, slug: string, manager: EntityManager = this.dataSource.manager): Promise<OpenApiSpec | null> {
    return manager.findOneBy(OpenApiSpec, { organizationId, slug });
  }

  /** The spec, row-locked for the caller's transaction (writes of one spec run one after another). */
  lockSpec(organizationId: string, slug: string, manager: EntityManager): Promise<OpenApiSpec | null> {
    return manager
      .createQueryBuilder(OpenApiSpec, 's')
      .setLock('pessimistic_write')
      .where('s.organization_id = :organizationId AND s.slug = :slug', { organizationId, slug })
      .getOne();
  }

  /** Inserts the spec unless the slug is taken in the organization; whether it did. */
  async insertSpec(spec: Pick<OpenApiSpec, 'id' | 'organizationId' | 'slug' | 'sourceUrl' | 'createdBy'>, manager: EntityManager): Promise<boolean> {
    const result = await manager.createQueryBuilder().insert().into(OpenApiSpec).values(spec).orIgnore().returning(['id']).execute();
    return (result.raw as unknown[]).length > 0;
  }

  async updateSpec(
    id: string,
    changes: Partial<
      Pick<
        OpenApiSpec,
        'sourceUrl' | 'visibility' | 'lastVersionId' | 'lastProcessedAt' | 'processingState' | 'lastProcessedErrors' | 'lastProcessedErrorCount' | 'updatedAt'
      >
    >,
    manager: EntityManager,
  ): Promise<void> {
    await manager.update(OpenApiSpec, { id }, changes);
  }

  /** The organization's specs in slug order (slugs are unique in an organization). */
  listSpecs(organizationId: string, query: ListQueryDto): Promise<Page<OpenApiSpec>> {
    const qb = this.dataSource.manager.createQueryBuilder(OpenApiSpec, 's').where('s.organization_id = :organizationId', { organizationId });
    return paginate<OpenApiSpec>(qb, query, { list: 'openapi-specs:slug:asc', columns: ['s.slug'], direction: 'ASC', keyOf: (spec) => [spec.slug] });
  }

  /** The problems of a stored content, or null when no content has this hash. */
  async storedProblems(hash: string): Promise<ContentProblems | null> {
    const content = await this.dataSource.manager.findOne(OpenApiSpecContent, {
      where: { hash },
      select: { hash: true, validationErrors: true, validationErrorCount: true },
    });
    return content ? { errors: content.validationErrors, errorCount: content.validationErrorCount } : null;
  }

  /** Stores a content unless the same content is stored already (content-addressed). */
  async storeContent(loaded: LoadedSpec, manager: EntityManager): Promise<void> {
    // The filesystem arrives as JSON text and Postgres parses it: no 5 MB stringify on the event loop.
    await manager.query(
      `INSERT INTO openapi_spec_contents (hash, format, raw_text, filesystem, size, validation_errors, validation_error_count)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7) ON CONFLICT (hash) DO NOTHING`,
      [loaded.hash, loaded.format, loaded.rawText, loaded.filesystem, loaded.size, JSON.stringify(loaded.errors), loaded.errorCount],
    );
  }

  async insertVersion(
    version: Pick<OpenApiSpecVersion, 'id' | 'specId' | 'contentHash' | 'sourceUrl' | 'processingState'>,
    manager: EntityManager,
  ): Promise<OpenApiSpecVersion> {
    await manager.insert(OpenApiSpecVersion, version);
    return manager.findOneByOrFail(OpenApiSpecVersion, { id: version.id });
  }

  findVersion(specId: string, versionId: string, manager: EntityManager = this.dataSource.manager): Promise<OpenApiSpecVersion | null> {
    return manager.findOneBy(OpenApiSpecVersion, { specId, id: versionId });
  }

  /** A spec's versions, newest first. */
  listVersions(specId: string, query: ListQueryDto): Promise<Page<OpenApiSpecVersion>> {
    const qb = this.dataSource.manager.createQueryBuilder(OpenApiSpecVersion, 'v').where('v.spec_id = :specId', { specId });
    return paginate<OpenApiSpecVersion>(qb, query, {
      list: 'openapi-spec-versions:createdAt:desc',
      columns: ['v.created_at', 'v.id'],
      direction: 'DESC',
      keyOf: (version) => [version.createdAt, version.id],
    });
  }

  /** A stored content with the parts asked for (the text and the parsed files are large; neither is read unless asked). */
  async content(hash: string, parts: { rawText?: boolean; filesystem?: boolean }): Promise<OpenApiSpecContent | null> {
    const qb = this.dataSource.manager.createQueryBuilder(OpenApiSpecContent, 'c').where('c.hash = :hash', { hash });
    if (parts.rawText) qb.addSelect('c.rawText');
    if (parts.filesystem) qb.addSelect('c.filesystem');
    return qb.getOne();
  }

  /** The parsed files of several contents at once. */
  /**
   * The stored filesystems of these contents as JSON text (hash → text), for the render worker to
   * parse: Postgres writes the text, so a 5 MB document is not parsed on the event loop.
   */
  async filesystemTexts(hashes: string[]): Promise<Map<string, string>> {
    if (hashes.length === 0) return new Map();
    const rows: { hash: string; filesystem: string }[] = await this.dataSource.query(
      `SELECT hash, filesystem::text AS filesystem FROM openapi_spec_contents WHERE hash = ANY($1::text[])`,
      [hashes],
    );
    return new Map(rows.map((row) => [row.hash, row.filesystem]));
  }

  /** The latest version's content of each named spec of an organization (slug → content hash); specs without one are left out. */
  async latestContents(organizationId: string, slugs: string[]): Promise<Map<string, string>> {
    if (slugs.length === 0) return new Map();
    const rows: { slug: string; content_hash: string }[] = await this.dataSource.query(
      `SELECT s.slug, v.content_hash FROM openapi_specs s JOIN openapi_spec_versions v ON v.id = s.last_version_id
        WHERE s.organization_id = $1 AND s.slug = ANY($2::text[])`,
      [organizationId, slugs],
    );
    return new Map(rows.map((row) => [row.slug, row.content_hash]));
  }

  /**
   * Deletes the spec (its versions cascade), then the contents only it used. A content another
   * spec's version still uses stays.
   */
  async deleteSpec(specId: string, manager: EntityManager): Promise<void> {
    const used: { content_hash: string }[] = await manager.query(`SELECT DISTINCT content_hash FROM openapi_spec_versions WHERE spec_id = $1`, [specId]);
    await manager.delete(OpenApiSpec, { id: specId });
    if (used.length === 0) return;
    await manager.query(
      `DELETE FROM openapi_spec_contents c
        WHERE c.hash = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM openapi_spec_versions v WHERE v.content_hash = c.hash)`,
      [used.map((row) => row.content_hash)],
    );
  }
}
