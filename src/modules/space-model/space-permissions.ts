/** A caller's permissions on a space: `access.policy.ts` decides them, the space's JSON shows them. */
export interface SpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
}

/** The `permissions` object of a space as the public schema has it (one more flag than the route checks use). */
export interface SpacePermissionsJson extends SpacePermissions {
  installIntegration: boolean;
}
