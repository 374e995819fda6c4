import type { AppConfig } from '../../config/app-config';
import type { MemberRole } from '../../common/roles';
import { presentSpace, SpaceJson } from '../space-model/space.presenter';
import type { MemberSpace } from './member-space.read-model';

/** `MemberContentPermission`: a space a member can access, and their level on it. */
export interface MemberSpaceJson {
  permission: MemberRole;
  space: SpaceJson;
}

export function presentMemberSpace({ permission, space, permissions }: MemberSpace, config: AppConfig): MemberSpaceJson {
  return { permission, space: presentSpace(space, permissions, config) };
}
