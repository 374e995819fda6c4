import { newId } from '../../src/common/ids';
import { Site } from '../../src/modules/sites/site.entity';
import type { OrgFixture } from './builders';
import type { TestApp } from './test-app';

/** A site of `org` (only the row other modules refer to, until the sites module has its own builder). */
export async function createSite(t: TestApp, org: OrgFixture): Promise<string> {
  const site = await t.dataSource.getRepository(Site).save({ id: newId(), organizationId: org.id, title: 'Docs', createdBy: org.admin.user.id });
  return site.id;
}

export interface EventOverrides {
  type?: string;
  path?: string;
  timestamp?: string;
  visitorId?: string;
  sessionId?: string;
  referrer?: string | null;
  page?: string | null;
  space?: string | null;
  claims?: Record<string, unknown>;
}

/** A valid `SiteInsightsEvent` (a page view by default). */
export function siteEvent(overrides: EventOverrides = {}): Record<string, unknown> {
  const session: Record<string, unknown> = {
    visitorId: overrides.visitorId ?? 'visitor-1',
    sessionId: overrides.sessionId ?? 'session-1',
    cookies: {},
    userAgent: 'Mozilla/5.0',
    language: 'en',
    referrer: overrides.referrer === undefined ? null : overrides.referrer,
  };
  if (overrides.claims) session.visitorAuthClaims = overrides.claims;
  const event: Record<string, unknown> = {
    type: overrides.type ?? 'page_view',
    session,
    location: {
      url: `https://docs.example.com${overrides.path ?? '/guide'}`,
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: overrides.space === undefined ? 'space-1' : overrides.space,
      revision: null,
      page: overrides.page === undefined ? 'page-1' : overrides.page,
    },
  };
  if (overrides.timestamp) event.timestamp = overrides.timestamp;
  return event;
}
