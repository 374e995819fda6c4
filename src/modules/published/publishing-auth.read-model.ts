import type { SitePublishingAuth } from './site-publishing-auth.entity';

/** A site's publishing auth, with the visitor-auth integration installed on the site (`integration`), if any. */
export interface PublishingAuthView {
  auth: SitePublishingAuth;
  integration: string | null;
}
