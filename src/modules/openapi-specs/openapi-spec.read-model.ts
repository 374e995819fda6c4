import type { OpenApiSpecContent, OpenApiFilesystem, OpenApiProcessingError } from './openapi-spec-content.entity';
import type { OpenApiSpecVersion } from './openapi-spec-version.entity';
import type { OpenApiSpec } from './openapi-spec.entity';

/** A version with what its presentation needs: its spec. */
export interface OpenApiVersionRow {
  spec: OpenApiSpec;
  version: OpenApiSpecVersion;
}

/** A version's stored content, as `content` and `content/raw` read it. */
export type { OpenApiProcessingError };

export interface OpenApiVersionContent extends OpenApiVersionRow {
  content: Pick<OpenApiSpecContent, 'hash' | 'format'> & { rawText?: string; filesystem?: OpenApiFilesystem };
}

/** What validating a content found: the first problems (capped) and how many there were. */
export interface ContentProblems {
  errors: OpenApiProcessingError[];
  errorCount: number;
}

/** A source parsed and validated, ready to be stored as a version (with the problems validation found, if any). */
export interface LoadedSpec extends ContentProblems {
  hash: string;
  format: 'json' | 'yaml';
  rawText: string;
  /** The filesystem (file key → parsed document) as JSON text: built in the workers, parsed into jsonb by Postgres. */
  filesystem: string;
  size: number;
  /** The URL the entry file was fetched from (after redirects); null for text. */
  sourceUrl: string | null;
  /**
   * True when a content with this hash is stored already (it was validated then): nothing was
   * validated again (its stored problems are the ones here), `filesystem` is left empty (`{}`) and
   * nothing needs storing.
   */
  known: boolean;
}

/** What a create-or-replace did: the spec, whether it is new, whether a version was added. */
export interface SpecWriteResult {
  spec: OpenApiSpec;
  created: boolean;
  newVersion: boolean;
}
