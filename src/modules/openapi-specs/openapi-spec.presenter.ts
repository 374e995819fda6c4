import type { AppConfig } from '../../config/app-config';
import type { OpenApiFilesystem } from './openapi-spec-content.entity';
import type { OpenApiProcessingState, OpenApiSpecVersion } from './openapi-spec-version.entity';
import type { OpenApiSpec, OpenApiSpecVisibility } from './openapi-spec.entity';
import type { OpenApiSpecPermissions } from './openapi-spec.policy';
import type { OpenApiProcessingError } from './openapi-spec.read-model';

/** `OpenAPISpec` of the public description. */
export interface OpenApiSpecJson {
  object: 'openapi-spec';
  id: string;
  createdAt: string;
  updatedAt: string;
  slug: string;
  sourceURL?: string;
  processingState: OpenApiProcessingState;
  visibility: OpenApiSpecVisibility;
  lastVersion?: string;
  lastProcessedAt?: string;
  lastProcessedErrors: OpenApiProcessingError[];
  lastProcessedErrorCount: number;
  permissions: OpenApiSpecPermissions;
  urls: { location: string; app: string };
}

/** `OpenAPISpecVersion` (section 2.25). */
export interface OpenApiSpecVersionJson {
  object: 'openapi-spec-version';
  id: string;
  createdAt: string;
  url: string;
  urls: { location: string };
}

/** `OpenAPISpecContent`: the API description's `{ filesystem, url }`, with the public schema's `urls` too. */
export interface OpenApiSpecContentJson {
  filesystem: OpenApiFilesystem;
  url: string;
  urls: { source: string; public: string | null };
}

/** `OpenAPISpecRawContent`. */
export interface OpenApiSpecRawContentJson {
  text: string;
  format: 'json' | 'yaml';
}

const specPath = (spec: OpenApiSpec) => `/v1/orgs/${spec.organizationId}/openapi/${encodeURIComponent(spec.slug)}`;
const versionPath = (spec: OpenApiSpec, version: OpenApiSpecVersion) => `${specPath(spec)}/versions/${version.id}`;

/**
 * Specs are processed while the request that gives their source waits, so a stored spec is
 * `complete`; `lastProcessedErrors` lists what its latest content does not validate on (empty when
 * valid), `lastProcessedErrorCount` how many problems there were before the list was cut. A source
 * that cannot be fetched or parsed is refused with 400 and changes nothing, so `lastProcessErrorCode`
 * is never set.
 */
export function presentOpenApiSpec(spec: OpenApiSpec, permissions: OpenApiSpecPermissions, config: AppConfig): OpenApiSpecJson {
  const location = config.apiUrl(specPath(spec));
  return {
    object: 'openapi-spec',
    id: spec.id,
    createdAt: spec.createdAt.toISOString(),
    updatedAt: spec.updatedAt.toISOString(),
    slug: spec.slug,
    ...(spec.sourceUrl ? { sourceURL: spec.sourceUrl } : {}),
    processingState: spec.processingState,
    visibility: spec.visibility,
    ...(spec.lastVersionId ? { lastVersion: spec.lastVersionId } : {}),
    ...(spec.lastProcessedAt ? { lastProcessedAt: spec.lastProcessedAt.toISOString() } : {}),
    lastProcessedErrors: spec.lastProcessedErrors.map((error) => ({ message: error.message, ...(error.code ? { code: error.code } : {}) })),
    lastProcessedErrorCount: spec.lastProcessedErrorCount,
    permissions,
    urls: { location, app: config.appLink(`/o/${spec.organizationId}/openapi/${encodeURIComponent(spec.slug)}`, specPath(spec)) },
  };
}

/** Where a version's specification can be read: the URL it was fetched from, or (for text) its raw content in this API. */
export function versionUrl(spec: OpenApiSpec, version: OpenApiSpecVersion, config: AppConfig): string {
  return version.sourceUrl ?? config.apiUrl(`${versionPath(spec, version)}/content/raw`);
}

export function presentOpenApiSpecVersion(spec: OpenApiSpec, version: OpenApiSpecVersion, config: AppConfig): OpenApiSpecVersionJson {
  return {
    object: 'openapi-spec-version',
    id: version.id,
    createdAt: version.createdAt.toISOString(),
    url: versionUrl(spec, version, config),
    urls: { location: config.apiUrl(versionPath(spec, version)) },
  };
}

/**
 * `public` is the source URL of a public spec fetched from a URL; Quire serves no unauthenticated
 * copy of a spec given as text, so that one (and every private spec) has none.
 */
export function presentOpenApiSpecContent(
  spec: OpenApiSpec,
  version: OpenApiSpecVersion,
  filesystem: OpenApiFilesystem,
  config: AppConfig,
): OpenApiSpecContentJson {
  const url = versionUrl(spec, version, config);
  return { filesystem, url, urls: { source: url, public: spec.visibility === 'public' && version.sourceUrl ? version.sourceUrl : null } };
}

export function presentOpenApiSpecRawContent(text: string, format: 'json' | 'yaml'): OpenApiSpecRawContentJson {
  return { text, format };
}
