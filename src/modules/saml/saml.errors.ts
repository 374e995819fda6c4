/** Stable error codes of the SAML module (statuses: `modules/error-codes.ts`). */
export type SamlErrorCode = 'saml.not_found' | 'saml.list_forbidden' | 'saml.view_forbidden' | 'saml.manage_forbidden' | 'saml.unknown_default_team';
