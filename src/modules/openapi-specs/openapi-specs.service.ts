import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { CreateOpenApiSpecDto, OpenApiSpecSourceDto, SPEC_SLUG } from './dto/openapi-spec.dto';
import { OpenApiSpecVersion } from './openapi-spec-version.entity';
import { OpenApiSpec, OpenApiSpecVisibility } from './openapi-spec.entity';
import { openApiError } from './openapi-spec.errors';
import { openApiSpecPermissions } from './openapi-spec.policy';
import type { LoadedSpec, OpenApiVersionContent, OpenApiVersionRow, SpecWriteResult } from './openapi-spec.read-model';
import { OpenApiSpecsRepository } from './openapi-specs.repository';
import { SpecLoader } from './source/spec-loader';

/** `latest` or a version id, as the version routes name one. */
export type VersionSelector = { latest: true } | { id: string };

/**
 * Specs of an organization and their versions. A source is fetched, parsed and validated before
 * any transaction opens (a slow server holds no lock); the write then locks the spec's row, adds a
 * version only when the content differs from the latest one, and moves `lastVersion` and the
 * spec's processing state and problems, in one transaction. Versions are never changed. A spec that
 * parses but does not validate is stored all the same, its problems on the spec; a source that
 * cannot be fetched or parsed is refused and changes nothing.
 */
@Injectable()
export class OpenApiSpecsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly specs: OpenApiSpecsRepository,
    private readonly loader: SpecLoader,
  ) {}

  list(caller: Membership, query: ListQueryDto): Promise<Page<OpenApiSpec>> {
    return this.specs.listSpecs(caller.organizationId, query);
  }

  get(caller: Membership, slug: string): Promise<OpenApiSpec> {
    return this.found(caller, slug);
  }

  /** `createOpenAPISpec`: 409 when the slug is taken. */
  async create(caller: Membership, dto: CreateOpenApiSpecDto): Promise<OpenApiSpec> {
    this.requireEdit(caller);
    const loaded = await this.loader.load(dto.source, this.isStored);
    const result = await this.write(caller, dto.slug, dto.source, loaded, 'create');
    return result.spec;
  }

  /** `createOrUpdateOpenAPISpecBySlug`: creates the spec, or gives it a new source (and a version when the content changed). */
  async put(caller: Membership, slug: string, source: OpenApiSpecSourceDto): Promise<SpecWriteResult> {
    this.requireEdit(caller);
    if (slug.length > SPEC_SLUG.max || !SPEC_SLUG.pattern.test(slug)) {
      throw openApiError('openapi.invalid', `specSlug: must be 1 to ${SPEC_SLUG.max} letters and digits in groups joined by single hyphens`);
    }
    const loaded = await this.loader.load(source, this.isStored);
    return this.write(caller, slug, source, loaded, 'upsert');
  }

  async setVisibility(caller: Membership, slug: string, visibility: OpenApiSpecVisibility): Promise<OpenApiSpec> {
    await this.found(caller, slug);
    this.requireEdit(caller);
    return this.dataSource.transaction(async (em) => {
      const spec = await this.specs.lockSpec(caller.organizationId, slug, em);
      if (!spec) throw notFound(slug);
      if (spec.visibility !== visibility) await this.specs.updateSpec(spec.id, { visibility, updatedAt: new Date() }, em);
      return (await this.specs.lockSpec(caller.organizationId, slug, em)) as OpenApiSpec;
    });
  }

  /** Whether there was a spec to delete (the public description answers 205 or 204). */
  async delete(caller: Membership, slug: string): Promise<boolean> {
    this.requireEdit(caller);
    return this.dataSource.transaction(async (em) => {
      const spec = await this.specs.lockSpec(caller.organizationId, slug, em);
      if (!spec) return false;
      await this.specs.deleteSpec(spec.id, em);
      return true;
    });
  }

  async listVersions(caller: Membership, slug: string, query: ListQueryDto): Promise<{ spec: OpenApiSpec; page: Page<OpenApiSpecVersion> }> {
    const spec = await this.found(caller, slug);
    return { spec, page: await this.specs.listVersions(spec.id, query) };
  }

  async version(caller: Membership, slug: string, which: VersionSelector): Promise<OpenApiVersionRow> {
    const spec = await this.found(caller, slug);
    const id = 'latest' in which ? spec.lastVersionId : which.id;
    const version = id ? await this.specs.findVersion(spec.id, id) : null;
    if (!version)
      throw openApiError('openapi.version_not_found', `Version ${'latest' in which ? 'latest' : which.id} of OpenAPI specification ${slug} not found`);
    return { spec, version };
  }

  /** A version's parsed files (`content`) or original text (`content/raw`). */
  async content(caller: Membership, slug: string, which: VersionSelector, part: 'filesystem' | 'rawText'): Promise<OpenApiVersionContent> {
    const row = await this.version(caller, slug, which);
    const content = await this.specs.content(row.version.contentHash, { [part]: true });
    // Contents are deleted only with the last version that uses them, so this is a broken row.
    if (!content) throw openApiError('openapi.version_not_found', `The content of version ${row.version.id} is missing`);
    return { ...row, content };
  }

  private async write(caller: Membership, slug: string, source: OpenApiSpecSourceDto, loaded: LoadedSpec, mode: 'create' | 'upsert'): Promise<SpecWriteResult> {
    return this.dataSource.transaction(async (em) => {
      const created = await this.specs.insertSpec(
        { id: newId(), organizationId: caller.organizationId, slug, sourceUrl: source.url ?? null, createdBy: caller.userId },
        em,
      );
      if (!created && mode === 'create') throw openApiError('openapi.slug_taken', `An OpenAPI specification with slug ${slug} already exists`);
      const spec = (await this.specs.lockSpec(caller.organizationId, slug, em)) as OpenApiSpec;
      const newVersion = await this.addVersionIfChanged(spec, loaded, em);
      const now = new Date();
      const sourceUrl = source.url ?? null;
      await this.specs.updateSpec(
        spec.id,
        {
          sourceUrl,
          lastProcessedAt: now,
          // The latest content's problems: the same content always has the same ones, a valid one none.
          processingState: 'complete',
          lastProcessedErrors: loaded.errors,
          lastProcessedErrorCount: loaded.errorCount,
          ...(newVersion ? { lastVersionId: newVersion.id } : {}),
          ...(newVersion || sourceUrl !== spec.sourceUrl ? { updatedAt: now } : {}),
        },
        em,
      );
      return { spec: (await this.specs.findSpec(caller.organizationId, slug, em)) as OpenApiSpec, created, newVersion: newVersion !== null };
    });
  }

  /** A new version unless the latest one has exactly this content. */
  private async addVersionIfChanged(spec: OpenApiSpec, loaded: LoadedSpec, em: EntityManager): Promise<OpenApiSpecVersion | null> {
    const latest = spec.lastVersionId ? await this.specs.findVersion(spec.id, spec.lastVersionId, em) : null;
    if (latest && latest.contentHash === loaded.hash) return null;
    if (!loaded.known) await this.specs.storeContent(loaded, em);
    return this.specs.insertVersion({ id: newId(), specId: spec.id, contentHash: loaded.hash, sourceUrl: loaded.sourceUrl, processingState: 'complete' }, em);
  }

  private readonly isStored = (hash: string) => this.specs.storedProblems(hash);

  private async found(caller: Membership, slug: string): Promise<OpenApiSpec> {
    const spec = await this.specs.findSpec(caller.organizationId, slug);
    if (!spec) throw notFound(slug);
    return spec;
  }

  private requireEdit(caller: Membership): void {
    if (!openApiSpecPermissions(caller).edit) {
      throw openApiError('openapi.forbidden', 'Only members with the role create or above can create or change OpenAPI specifications');
    }
  }
}

const notFound = (slug: string) => openApiError('openapi.spec_not_found', `OpenAPI specification ${slug} not found`);
