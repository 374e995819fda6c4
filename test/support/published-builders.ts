import { SignJWT } from 'jose';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import type { SiteRedirectMatch, SiteRedirectsSource } from '../../src/modules/sites/site-redirects.port';
import { PublishedService } from '../../src/modules/published/published.service';
import { OrgFixture, unique } from './builders';
import { addSection, createSite, sitePath } from './site-builders';
import { createSpace } from './space-builders';
import type { TestApp } from './test-app';

/** Builders for readers' tests (issue 26): sites with sections, variants and nested pages, visitor JWTs. */

export interface TreePage {
  pageId: string;
  title: string;
  slug: string;
  parentId?: string;
}

/** Makes a new revision holding exactly `pages` (parents before children) the space's active one. */
export async function writeTree(t: TestApp, org: OrgFixture, spaceId: string, pages: TreePage[]): Promise<string> {
  const writer = t.app.get(RevisionWriter);
  const positions = new Map<string | null, number>();
  const drafts = pages.map((page) => {
    const parentId = page.parentId ?? null;
    const position = positions.get(parentId) ?? 0;
    positions.set(parentId, position + 1);
    return documentPage({ pageId: page.pageId, title: page.title, slug: page.slug, parentId, position, markdown: `# ${page.title}\n` });
  });
  const revision = await t.app
    .get(SpaceUnitOfWork)
    .run(spaceId, org.admin.user, 'edit', (write) =>
      write.commitRevision((base, em) => writer.write({ spaceId, parents: [base], type: 'edits', createdBy: org.admin.user.id, pages: drafts, files: [] }, em)),
    );
  return revision.id;
}

export interface ReaderSite {
  site: any;
  orgHostname: string;
  /** `PUBLISHED_BASE_URL/<org hostname>/<basename>` (no trailing slash). */
  base: string;
  /** Section `guides` (default): variants `v2` (default, space `guides`) and `v1` (space `legacy`); section `api` (space `api`). */
  spaces: { guides: string; legacy: string; api: string };
  siteSpaces: { guides: string; legacy: string; api: string };
  sections: { guides: string; api: string };
}

/**
 * A published site of `org` at `<publishedBaseUrl>/<org hostname>/docs`, in two sections:
 * `guides` (default) with variants `v2` (default: pages `intro`, `getting-started`, `getting-started/install`)
 * and `v1` (page `intro`), and `api` (page `reference`).
 */
export async function createReaderSite(t: TestApp, org: OrgFixture, publishedBaseUrl: string, visibility: string): Promise<ReaderSite> {
  const orgHostname = unique('org').toLowerCase();
  await t.http
    .patch(`/v1/orgs/${org.id}`)
    .set(...org.admin.auth)
    .send({ hostname: orgHostname })
    .expect(200);
  const guides = (await createSpace(t, org, { title: 'Guides' })).id;
  const legacy = (await createSpace(t, org, { title: 'Legacy' })).id;
  const api = (await createSpace(t, org, { title: 'API' })).id;
  await writeTree(t, org, guides, [
    { pageId: unique('p'), title: 'Intro', slug: 'intro' },
    { pageId: 'gs', title: 'Getting started', slug: 'getting-started' },
    { pageId: unique('p'), title: 'Install', slug: 'install', parentId: 'gs' },
  ]);
  await writeTree(t, org, legacy, [{ pageId: unique('p'), title: 'Intro', slug: 'intro' }]);
  await writeTree(t, org, api, [{ pageId: unique('p'), title: 'Reference', slug: 'reference' }]);
  const site = await createSite(t, org, { visibility });
  const section = await addSection(t, org, site.id, { spaceId: guides, title: 'Guides' });
  const apiSection = await addSection(t, org, site.id, { spaceId: api, title: 'API' });
  const path = sitePath(org, site.id);
  const v2 = section.siteSpaces[0].id;
  await t.http
    .patch(`${path}/site-spaces/${v2}`)
    .set(...org.admin.auth)
    .send({ path: 'v2' })
    .expect(200);
  const v1 = await t.http
    .post(`${path}/site-spaces`)
    .set(...org.admin.auth)
    .send({ spaceId: legacy, sectionId: section.id })
    .expect(201);
  await t.http
    .patch(`${path}/site-spaces/${v1.body.id}`)
    .set(...org.admin.auth)
    .send({ path: 'v1' })
    .expect(200);
  // The site's own first space (created with it) is dropped: only the three above are shown.
  const structure = await t.http
    .get(`${path}/site-spaces`)
    .set(...org.admin.auth)
    .expect(200);
  for (const item of structure.body.items) {
    if (![v2, v1.body.id, apiSection.siteSpaces[0].id].includes(item.id)) {
      await t.http.delete(`${path}/site-spaces/${item.id}`).set(...org.admin.auth);
    }
  }
  await t.http
    .patch(path)
    .set(...org.admin.auth)
    .send({ basename: 'docs', defaultSiteSection: section.id })
    .expect(200);
  await t.http
    .post(`${path}/publish`)
    .set(...org.admin.auth)
    .expect(200);
  return {
    site,
    orgHostname,
    base: `${publishedBaseUrl}/${orgHostname}/docs`,
    spaces: { guides, legacy, api },
    siteSpaces: { guides: v2, legacy: v1.body.id, api: apiSection.siteSpaces[0].id },
    sections: { guides: section.id, api: apiSection.id },
  };
}

/** A visitor JWT signed with `key` (HS256), `exp` seconds from now (negative: already expired). */
export function visitorJwt(key: string, claims: Record<string, unknown> = {}, exp = 3600): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(now)
    .setExpirationTime(now + exp)
    .sign(new TextEncoder().encode(key));
}

/** A JWT with `alg: none` (no signature): always refused. */
export function unsignedJwt(claims: Record<string, unknown> = {}): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 })}.`;
}

/**
 * A stand-in of the SITE_REDIRECTS port for the resolution tests, installed when no module provides
 * it: `/old-install` is a moved page (→ `/getting-started/install`), `/legacy/*` a wildcard redirect
 * capturing the rest (→ `/getting-started/*`), `/out` an external one.
 */
export const TEST_REDIRECTS: SiteRedirectsSource = {
  async match(_siteId: string, pathname: string): Promise<SiteRedirectMatch | null> {
    if (pathname === '/old-install') return { location: '/getting-started/install', external: false, permanent: true };
    if (pathname.startsWith('/legacy/')) return { location: `/getting-started/${pathname.slice('/legacy/'.length)}`, external: false, permanent: false };
    if (pathname === '/out') return { location: 'https://example.com/elsewhere', external: true, permanent: true };
    return null;
  },
};

/**
 * Puts TEST_REDIRECTS in place of the application's SITE_REDIRECTS provider (if any) for this test
 * app's URL resolution, so the resolution matrix's moved-page and wildcard rows hold whatever the
 * redirects module stores; the redirects module's own tests cover its matching.
 */
export function useTestRedirects(t: TestApp): void {
  (t.app.get(PublishedService) as unknown as { redirects?: SiteRedirectsSource }).redirects = TEST_REDIRECTS;
}
