import { Identity1763726400000 } from './1763726400000-identity';
import { ContentContainers1763726401000 } from './1763726401000-content-containers';
import { OrganizationAdministration1763726410000 } from './1763726410000-organization-administration';
import { ContentTreeOrder1763726420000 } from './1763726420000-content-tree-order';
import { SpaceContent1763726430000 } from './1763726430000-space-content';
import { IdempotencyKeys1800000003000 } from './1800000003000-idempotency-keys';
import { JobQueue1800000050000 } from './1800000050000-job-queue';
import { OrganizationInvites1800000060000 } from './1800000060000-organization-invites';
import { SamlPendingProviders1800000061000 } from './1800000061000-saml-pending-providers';
import { ChangeRequests1800000070000 } from './1800000070000-change-requests';
import { Sites1800000071000 } from './1800000071000-sites';
import { ComputedPages1800000071500 } from './1800000071500-computed-pages';
import { ChangeRequestContributors1800000072000 } from './1800000072000-change-request-contributors';
import { Comments1800000073000 } from './1800000073000-comments';
import { SiteStructure1800000074000 } from './1800000074000-site-structure';
import { OpenApiSpecs1800000075000 } from './1800000075000-openapi-specs';
import { SiteInsights1800000076000 } from './1800000076000-site-insights';
import { ContentAtScale1800000078000 } from './1800000078000-content-at-scale';
import { Integrations1800000077000 } from './1800000077000-integrations';
import { ChangeRequestPdfRenders1800000079000 } from './1800000079000-change-request-pdf-renders';
import { RevisionLayers1800000080000 } from './1800000080000-revision-layers';
import { DocumentTsvUncompressed1800000081000 } from './1800000081000-document-tsv-uncompressed';
import { SearchTables1800000091000 } from './1800000091000-search-tables';
import { PageTreeKeys1800000092000 } from './1800000092000-page-tree-keys';
import { InstallationGrantedScopes1800000100000 } from './1800000100000-installation-granted-scopes';
import { IntegrationEventsRetention1800000110000 } from './1800000110000-integration-events-retention';
import { EncryptSecrets1800000120000 } from './1800000120000-encrypt-secrets';
import { SitePublishingAuth1800000150000 } from './1800000150000-site-publishing-auth';
import { PublishedGeneration1800000150001 } from './1800000150001-published-generation';
import { EmbedCache1800000160000 } from './1800000160000-embed-cache';
import { SiteRedirects1800000170000 } from './1800000170000-site-redirects';
import { DocumentJson1800000200000 } from './1800000200000-document-json';
import { OpenApiProcessingErrors1800000230000 } from './1800000230000-openapi-processing-errors';
import { ChangeRequestReviews1800000240000 } from './1800000240000-change-request-reviews';
import { PublishedNotify1800000280000 } from './1800000280000-published-notify';
import { OrganizationDefaultSite1800000290000 } from './1800000290000-organization-default-site';
import { AuditEvents1800000300000 } from './1800000300000-audit-events';
import { PublicMergeRules1800000310000 } from './1800000310000-public-merge-rules';
import { ReviewComments1800000311000 } from './1800000311000-review-comments';
import { TeamReviewers1800000312000 } from './1800000312000-team-reviewers';
import { InsightsFold1800000320000 } from './1800000320000-insights-fold';
import { AuditEventDelivery1800000340000 } from './1800000340000-audit-event-delivery';
import { AuditEventsLeanIndexes1800000350000 } from './1800000350000-audit-events-lean-indexes';
import { RevisionDeltaKeys1800000360000 } from './1800000360000-revision-delta-keys';
import { InsightsMinuteSpan1800000370000 } from './1800000370000-insights-minute-span';
import { AuditChainLinks1800000400000 } from './1800000400000-audit-chain-links';
import { AuditFiltersOnLinks1800000410000 } from './1800000410000-audit-filters-on-links';
import { AuditChainRetentionMark1800000420000 } from './1800000420000-audit-chain-retention-mark';

/** Every migration, oldest first. `npm run migration:generate` prints a new one to add here. */
export const MIGRATIONS = [
  Identity1763726400000,
  ContentContainers1763726401000,
  OrganizationAdministration1763726410000,
  ContentTreeOrder1763726420000,
  SpaceContent1763726430000,
  IdempotencyKeys1800000003000,
  JobQueue1800000050000,
  OrganizationInvites1800000060000,
  SamlPendingProviders1800000061000,
  ChangeRequests1800000070000,
  Sites1800000071000,
  ComputedPages1800000071500,
  ChangeRequestContributors1800000072000,
  Comments1800000073000,
  SiteStructure1800000074000,
  OpenApiSpecs1800000075000,
  SiteInsights1800000076000,
  ContentAtScale1800000078000,
  Integrations1800000077000,
  ChangeRequestPdfRenders1800000079000,
  RevisionLayers1800000080000,
  DocumentTsvUncompressed1800000081000,
  SearchTables1800000091000,
  PageTreeKeys1800000092000,
  InstallationGrantedScopes1800000100000,
  IntegrationEventsRetention1800000110000,
  EncryptSecrets1800000120000,
  SitePublishingAuth1800000150000,
  PublishedGeneration1800000150001,
  EmbedCache1800000160000,
  SiteRedirects1800000170000,
  DocumentJson1800000200000,
  OpenApiProcessingErrors1800000230000,
  ChangeRequestReviews1800000240000,
  PublishedNotify1800000280000,
  OrganizationDefaultSite1800000290000,
  AuditEvents1800000300000,
  PublicMergeRules1800000310000,
  ReviewComments1800000311000,
  TeamReviewers1800000312000,
  InsightsFold1800000320000,
  AuditEventDelivery1800000340000,
  AuditEventsLeanIndexes1800000350000,
  RevisionDeltaKeys1800000360000,
  InsightsMinuteSpan1800000370000,
  AuditChainLinks1800000400000,
  AuditFiltersOnLinks1800000410000,
  AuditChainRetentionMark1800000420000,
];
