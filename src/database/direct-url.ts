/**
 * Provider token of the direct URL for session-level connections (LISTEN), or undefined when the
 * pool's own server is direct (DATABASE_DIRECT_URL unset, or equal to DATABASE_URL).
 */
export const DATABASE_DIRECT_URL = 'quire:databaseDirectUrl';
