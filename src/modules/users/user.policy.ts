/**
 * Privacy of a user's e-mail, wherever a user is shown (`GET /v1/users/{id}`, members, team members,
 * grants, comment authors to come). The caller sees the e-mail of:
 * - themselves;
 * - anyone who shares an organization with them in which the caller is an enabled member with a role.
 * A caller whose only tie to a user is a guest membership (role null) sees the user without `email`.
 *
 * The rule is one SQL statement (`UsersRepository.emailVisibleTo`); every presenter that shows a user
 * takes the resulting set, so no route decides it on its own.
 */
export type EmailVisibility = ReadonlySet<string>;

/** The caller reading their own profile. */
export const ownEmail = (userId: string): EmailVisibility => new Set([userId]);

/** A caller who sees no one's e-mail (a site API token: a reader of a published site). */
export const NO_EMAILS: EmailVisibility = new Set<string>();
