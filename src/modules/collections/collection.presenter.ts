import { AppConfig } from '../../config/app-config';
import type { MemberRoleOrGuest } from '../../common/roles';
import type { CollectionPermissions } from '../access/access.policy';
import { Collection } from '../space-model/collection.entity';

/** `Collection` as the API shows it (section 2.7). */
export interface CollectionJson {
  object: 'collection';
  id: string;
  title: string;
  description?: string;
  organization: string;
  parent?: string;
  defaultLevel: MemberRoleOrGuest;
  urls: { location: string; app: string };
  permissions: CollectionPermissions;
}

export function presentCollection(collection: Collection, permissions: CollectionPermissions, config: AppConfig): CollectionJson {
  const json: CollectionJson = {
    object: 'collection',
    id: collection.id,
    title: collection.title,
    organization: collection.organizationId,
    defaultLevel: collection.defaultLevel,
    urls: {
      location: config.apiUrl(`/v1/collections/${collection.id}`),
      app: config.appLink(`/o/${collection.organizationId}/c/${collection.id}`, `/v1/collections/${collection.id}`),
    },
    permissions,
  };
  if (collection.description !== null) json.description = collection.description;
  if (collection.parentId) json.parent = collection.parentId;
  return json;
}
