import { locate, segmentsOf } from '../../src/modules/published/published-url';
import { signSiteToken, siteTokenKey, verifySiteToken } from '../../src/modules/published/site-auth/site-token';
import { visibleLevels, visibleSpaceIds } from '../../src/modules/published/visible-structure';
import type { SiteSnapshot } from '../../src/modules/published/site-snapshot';

describe('published URLs', () => {
  const config = { sitesBaseDomain: 'docs.example.com', baseUrl: 'http://localhost:3000/sites' };

  it('finds a custom hostname, an organization subdomain, and a path under PUBLISHED_BASE_URL', () => {
    expect(locate(new URL('https://help.acme.com/guides/intro'), config)).toEqual({
      kind: 'hostname',
      hostname: 'help.acme.com',
      prefix: '',
      segments: ['guides', 'intro'],
    });
    expect(locate(new URL('https://acme.docs.example.com/docs/intro'), config)).toEqual({
      kind: 'organization',
      organizationHostname: 'acme',
      prefix: '',
      segments: ['docs', 'intro'],
    });
    expect(locate(new URL('http://localhost:3000/sites/acme/docs/a%20b'), config)).toEqual({
      kind: 'organization',
      organizationHostname: 'acme',
      prefix: '/sites/acme',
      segments: ['docs', 'a b'],
    });
    // Deeper subdomains are not an organization's; another port is not the base URL.
    expect(locate(new URL('https://x.acme.docs.example.com/'), config)).toMatchObject({ kind: 'hostname' });
    expect(locate(new URL('http://localhost:3001/sites/acme/docs'), config)).toMatchObject({ kind: 'hostname', hostname: 'localhost' });
  });

  it('refuses paths that climb or do not decode', () => {
    expect(segmentsOf('/a/../b')).toBeNull();
    expect(segmentsOf('/a/%E0%A4%A')).toBeNull();
    expect(segmentsOf('/a/%2F/b')).toBeNull();
    expect(segmentsOf('//a///b/')).toEqual(['a', 'b']);
  });
});

describe('visible structure', () => {
  const site = (overrides: Partial<SiteSnapshot>): SiteSnapshot => ({
    id: 's',
    organizationId: 'o',
    visibility: 'public',
    published: true,
    adaptiveSchema: null,
    matched: true,
    sections: [],
    siteSpaces: [],
    privateKey: null,
    fallbackUrl: null,
    shareKeyOpens: false,
    ...overrides,
  });
  const space = (id: string, sectionId: string | null, isDefault: boolean, condition: string | null = null) => ({
    id,
    sectionId,
    spaceId: `space-${id}`,
    revisionId: `rev-${id}`,
    path: id,
    condition,
    isDefault,
  });

  it('hides what a false condition names; the first shown stands in for a hidden default', () => {
    const snapshot = site({
      sections: [
        { id: 'a', path: 'a', condition: 'visitor.claims.staff', isDefault: true },
        { id: 'b', path: 'b', condition: null, isDefault: false },
      ],
      siteSpaces: [space('a1', 'a', true), space('b1', 'b', true, '!visitor.claims.beta'), space('b2', 'b', false)],
    });
    expect(visibleLevels(snapshot, { unsigned: {} }).map((level) => [level.section?.id, level.siteSpaces.map((row) => row.id)])).toEqual([['b', ['b1', 'b2']]]);
    const staff = visibleLevels(snapshot, { staff: true, beta: true, unsigned: {} });
    expect(staff.map((level) => [level.section?.id, level.siteSpaces.map((row) => row.id)])).toEqual([
      ['a', ['a1']],
      ['b', ['b2']],
    ]);
    expect(visibleSpaceIds(staff).sort()).toEqual(['space-a1', 'space-b2']);
  });
});

describe('site API tokens', () => {
  const key = siteTokenKey('a-signing-secret-of-thirty-two-characters');
  const input = { organizationId: 'o', siteId: 's', siteSpaceId: 'ss', spaceId: 'sp', spaces: ['b', 'a'], claims: { z: 1, a: { y: 2, x: 1 } } };

  it('is the same token for the same site space, audience and UTC day, and another the next day', async () => {
    const morning = Date.UTC(2026, 10, 27, 1);
    const evening = Date.UTC(2026, 10, 27, 23);
    const a = await signSiteToken(input, key, morning);
    expect(await signSiteToken({ ...input, spaces: ['a', 'b'], claims: { a: { x: 1, y: 2 }, z: 1 } }, key, evening)).toBe(a);
    expect(await signSiteToken(input, key, Date.UTC(2026, 10, 28, 1))).not.toBe(a);
    expect(await signSiteToken({ ...input, claims: {} }, key, morning)).not.toBe(a);
  });

  it('verifies its own tokens only', async () => {
    const token = await signSiteToken(input, key);
    expect(await verifySiteToken(token, key)).toMatchObject({ siteId: 's', spaceId: 'sp', spaces: ['a', 'b'] });
    expect(await verifySiteToken(token, siteTokenKey('another-signing-secret-of-32-characters'))).toBeNull();
    expect(await verifySiteToken(`${token}x`, key)).toBeNull();
  });
});
