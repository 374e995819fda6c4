import type { AppConfig } from '../../../config/app-config';
import { DEFAULT_LAYOUT } from '../content.presenter';
import type { AttributeChange, SemanticChange, SemanticFile, SemanticPage } from './semantic-changes';
import type { RevisionFileUrl, SemanticChangesView } from './semantic-changes.read-model';

export interface ChangedPageJson {
  id: string;
  type: 'document' | 'group' | 'link' | 'computed';
  title: string;
  path?: string;
}

export interface ChangedFileJson {
  id: string;
  name: string;
  contentType: string;
  downloadURL: string;
}

export type SemanticChangeJson = { type: SemanticChange['type'] } & Record<string, unknown>;

export interface SemanticChangesJson {
  changes: SemanticChangeJson[];
  more?: number;
}

export interface SemanticChangesContext {
  config: AppConfig;
  spaceId: string;
  /** Signed URLs for readers; the revision's own route by default. */
  fileUrl?: RevisionFileUrl;
}

function changedPage(page: SemanticPage): ChangedPageJson {
  const json: ChangedPageJson = { id: page.pageId, type: page.computed ? 'computed' : page.kind, title: page.title };
  if (page.path !== null) json.path = page.path;
  return json;
}

/** `{ before, after }` with absent sides left out (a value that was not set has no `before`). */
function attribute(name: string, change: AttributeChange): Record<string, unknown> {
  const side = (value: unknown) => {
    if (value === null || value === undefined) return undefined;
    if (name === 'layout') return { ...DEFAULT_LAYOUT, ...(value as object) };
    return value;
  };
  const json: Record<string, unknown> = {};
  const [before, after] = [side(change.before), side(change.after)];
  if (before !== undefined) json.before = before;
  if (after !== undefined) json.after = after;
  return json;
}

/** The public `RevisionSemanticChanges` (without `mergedFrom`, which the caller adds). */
export function presentSemanticChanges(view: SemanticChangesView, context: SemanticChangesContext): SemanticChangesJson {
  const url = (revisionId: string, fileId: string) =>
    context.fileUrl?.(revisionId, fileId) ?? context.config.apiUrl(`/v1/spaces/${context.spaceId}/revisions/${revisionId}/files/${fileId}/download`);
  const file = (revisionId: string, f: SemanticFile): ChangedFileJson => ({
    id: f.fileId,
    name: f.name,
    contentType: f.contentType,
    downloadURL: url(revisionId, f.fileId),
  });
  const parent = (pages: Map<string, SemanticPage>, id: string | null) => {
    const page = id === null ? undefined : pages.get(id);
    return page ? changedPage(page) : undefined;
  };
  const changes = view.changes.map((change): SemanticChangeJson => {
    switch (change.type) {
      case 'page_created':
      case 'page_deleted':
        return { type: change.type, page: changedPage(change.page) };
      case 'page_moved': {
        const before = parent(view.parentsBefore, change.parentBefore);
        const after = parent(view.parentsAfter, change.parentAfter);
        return { type: change.type, page: changedPage(change.page), parent: { ...(before ? { before } : {}), ...(after ? { after } : {}) } };
      }
      case 'page_edited':
        return {
          type: change.type,
          page: changedPage(change.page),
          attributes: Object.fromEntries(Object.entries(change.attributes).map(([name, value]) => [name, attribute(name, value)])),
        };
      case 'file_created':
        return { type: change.type, file: file(view.after, change.file) };
      case 'file_deleted':
        return { type: change.type, file: file(view.before ?? view.after, change.file) };
      case 'file_edited': {
        const attributes = Object.fromEntries(Object.entries(change.attributes).map(([name, value]) => [name, attribute(name, value)]));
        // The download URL of each side names that revision's bytes.
        if (attributes.downloadURL && view.before)
          attributes.downloadURL = { before: url(view.before, change.file.fileId), after: url(view.after, change.file.fileId) };
        return { type: change.type, file: file(view.after, change.file), attributes };
      }
    }
  });
  return view.more > 0 ? { changes, more: view.more } : { changes };
}
