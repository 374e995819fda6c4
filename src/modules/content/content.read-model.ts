import type { RevisionPage } from './revision-page.entity';

/** A page of a revision with its markdown body (null for groups and links, which have none). */
export type PageWithBody = RevisionPage & { markdown: string | null };
