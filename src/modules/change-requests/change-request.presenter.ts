import type { AppConfig } from '../../config/app-config';
import { presentUser, type UserJson } from '../users/user.presenter';
import type { ChangeRequest, ChangeRequestStatus } from './change-request.entity';
import type { ChangeRequestView, ContentUpdateView } from './change-request.read-model';
import type { PageOutcome } from './authoring/tree-editor';
import { presentFile, type RevisionFileJson } from '../content/content.presenter';

/** `ChangeRequest` as the API shows it (section 2.6). */
export interface ChangeRequestJson {
  object: 'change-request';
  id: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  createdBy?: UserJson;
  createdAt: string;
  updatedAt: string;
  mergedBy?: UserJson;
  mergedAt?: string;
  space: string;
  revision: string;
  revisionInitial: string;
  revisionMergedAncestor?: string;
  revisionMerged?: string;
  comments: number;
  outdated: boolean;
  urls: { app: string; location: string };
}

export type PageOutcomeJson =
  | { object: 'created_page'; ref?: string; page: { object: 'page'; id: string; urls: { location: string } } }
  | { object: 'updated_page'; page: { object: 'page'; id: string; urls: { location: string } } }
  | { object: 'deleted_page'; page: string };

export interface ContentUpdateJson {
  changeRequest: ChangeRequestJson;
  changes: PageOutcomeJson[];
  insertedFiles: RevisionFileJson[];
}

const path = (cr: Pick<ChangeRequest, 'spaceId' | 'id'>) => `/v1/spaces/${cr.spaceId}/change-requests/${cr.id}`;

/** Whether main has moved past the revision the change request was last based on. */
export function isOutdated(cr: ChangeRequest, activeRevision: string): boolean {
  if (cr.status === 'merged') return false;
  return (cr.revisionMergedAncestor ?? cr.revisionInitial) !== activeRevision;
}

export function presentChangeRequest(view: ChangeRequestView, config: AppConfig): ChangeRequestJson {
  const cr = view.changeRequest;
  const json: ChangeRequestJson = {
    object: 'change-request',
    id: cr.id,
    number: cr.number,
    status: cr.status,
    subject: cr.subject,
    createdAt: cr.createdAt.toISOString(),
    updatedAt: cr.updatedAt.toISOString(),
    space: cr.spaceId,
    revision: cr.revision,
    revisionInitial: cr.revisionInitial,
    comments: cr.openComments,
    outdated: isOutdated(cr, view.activeRevision),
    urls: {
      app: config.appLink(`/o/${view.organizationId}/s/${cr.spaceId}/~/changes/${cr.number}`, path(cr)),
      location: config.apiUrl(path(cr)),
    },
  };
  const creator = cr.createdBy ? view.users.get(cr.createdBy) : undefined;
  if (creator) json.createdBy = presentUser(creator, config, view.emails);
  if (cr.revisionMergedAncestor) json.revisionMergedAncestor = cr.revisionMergedAncestor;
  if (cr.revisionMerged) json.revisionMerged = cr.revisionMerged;
  if (cr.mergedAt) json.mergedAt = cr.mergedAt.toISOString();
  const merger = cr.mergedBy ? view.users.get(cr.mergedBy) : undefined;
  if (merger) json.mergedBy = presentUser(merger, config, view.emails);
  return json;
}

export function presentContentUpdate(update: ContentUpdateView, config: AppConfig): ContentUpdateJson {
  const cr = update.view.changeRequest;
  const pageRef = (id: string) => ({ object: 'page' as const, id, urls: { location: config.apiUrl(`${path(cr)}/content/page/${id}`) } });
  const context = { config, organizationId: update.view.organizationId, spaceId: cr.spaceId, revisionId: cr.revision, active: false };
  return {
    changeRequest: presentChangeRequest(update.view, config),
    changes: update.changes.map((change: PageOutcome): PageOutcomeJson => {
      if (change.object === 'deleted_page') return change;
      if (change.object === 'created_page') return { object: 'created_page', ...(change.ref ? { ref: change.ref } : {}), page: pageRef(change.page) };
      return { object: 'updated_page', page: pageRef(change.page) };
    }),
    insertedFiles: update.insertedFiles.map((file) => presentFile(context, file)),
  };
}
