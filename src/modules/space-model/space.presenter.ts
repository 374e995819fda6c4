import { AppConfig } from '../../config/app-config';
import type { MemberRoleOrGuest } from '../../common/roles';
import type { MergeRulesOfSpace } from './merge-rules';
import type { SpacePermissionsJson } from './space-permissions';
import { Space, SpaceEditMode, SpaceVisibility } from './space.entity';

/** `Space` as the API shows it (section 2.3). */
export interface SpaceJson {
  object: 'space';
  id: string;
  title: string;
  emoji: string;
  visibility: SpaceVisibility;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  editMode: SpaceEditMode;
  organization: string;
  parent?: string;
  revision: string;
  defaultLevel: MemberRoleOrGuest;
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  mergeRules: MergeRulesOfSpace;
  urls: { location: string; app: string; published?: string; public?: string };
  permissions: SpacePermissionsJson;
}

export interface PresentSpaceOptions {
  /** The share key of a `share-link` space: its published URL only works with it. */
  shareKey?: string;
}

export function presentSpace(space: Space, permissions: SpacePermissionsJson, config: AppConfig, options: PresentSpaceOptions = {}): SpaceJson {
  const json: SpaceJson = {
    object: 'space',
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    createdAt: space.createdAt.toISOString(),
    updatedAt: space.updatedAt.toISOString(),
    editMode: space.editMode,
    organization: space.organizationId,
    revision: space.revisionId,
    defaultLevel: space.defaultLevel,
    comments: space.openComments,
    changeRequests: space.changeRequestsCount,
    changeRequestsOpen: space.openChangeRequests,
    changeRequestsDraft: space.draftChangeRequests,
    mergeRules: space.mergeRules ?? { type: 'inherit' },
    urls: {
      location: config.apiUrl(`/v1/spaces/${space.id}`),
      app: config.appLink(`/o/${space.organizationId}/s/${space.id}`, `/v1/spaces/${space.id}`),
    },
    permissions,
  };
  if (space.deletedAt) json.deletedAt = space.deletedAt.toISOString();
  if (space.parentId) json.parent = space.parentId;
  const published = publishedUrl(space, config, options.shareKey);
  if (published) json.urls.published = published;
  if (space.visibility === 'public') json.urls.public = published;
  return json;
}

/**
 * Where readers find the published space: none while private, and a share-link space needs its key.
 * Published content is served by the web application, so there is none without APP_URL.
 */
function publishedUrl(space: Space, config: AppConfig, shareKey: string | undefined): string | undefined {
  if (space.visibility === 'private' || !config.appUrl) return undefined;
  const url = `${config.appUrl}/published/${space.id}`;
  if (space.visibility !== 'share-link') return url;
  return shareKey ? `${url}?share=${encodeURIComponent(shareKey)}` : undefined;
}
