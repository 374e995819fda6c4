import { locate, segmentsOf } from '../../src/modules/published/published-url';
import { signSiteToken, siteTokenKey, verifySiteToken } from '../../src/modules/published/site-auth/site-token';
import { contextIdOf, visibleLevels, visibleSpaceIds } from '../../src/modules/published/visible-structure';
import { conditionClaimPaths } from '../../src/modules/sites/adaptive-content';
import { installationSigningSecret, targetSigningSecret } from '../../src/modules/integrations/runtime/signing-secrets';
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
    backend: 'custom',
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
  it('contextId: the same for the same values of the claims conditions read, another when one changes; never the claims', () => {
    const snapshot = site({
      visibility: 'visitor-auth',
      siteSpaces: [space('a', null, true), space('b', null, false, 'visitor.claims.plan === "pro" && !visitor.claims.unsigned.beta')],
    });
    const idOf = (claims: Record<string, unknown>) => contextIdOf(snapshot, claims);
    const pro = idOf({ plan: 'pro', email: 'a@example.com', unsigned: {} });
    // A claim no condition reads (email) does not count; an absent claim is the same for everyone.
    expect(idOf({ plan: 'pro', email: 'b@example.com', unsigned: {} })).toBe(pro);
    expect(idOf({ plan: 'free', unsigned: {} })).not.toBe(pro);
    expect(idOf({ plan: 'pro', unsigned: { beta: true } })).not.toBe(pro);
    expect(idOf({ plan: 'free', unsigned: {} })).toBe(idOf({ plan: 'free', other: 1, unsigned: {} }));
    // The same claims on another site: another context.
    expect(contextIdOf({ ...snapshot, id: 'other' }, { plan: 'pro', unsigned: {} })).not.toBe(pro);
    expect(pro).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pro).not.toContain('pro');
  });

  it('conditionClaimPaths: the claims a condition reads', () => {
    expect(conditionClaimPaths('visitor.claims.plan === "pro" || visitor.claims.unsigned.beta')).toEqual(['plan', 'unsigned.beta']);
    expect(conditionClaimPaths('Object.keys(visitor.claims).length > 0')).toEqual([]);
    expect(conditionClaimPaths('!!visitor.claims ? 1 : visitor.claims.a.b')).toEqual(['', 'a.b']);
    expect(conditionClaimPaths('true')).toEqual([]);
  });
});

describe('signing secrets of script calls', () => {
  it('one per installation and per site installation, distinct, stable, never the integration secret', () => {
    const secret = 'integration-secret';
    const a = targetSigningSecret(secret, 'inst-a', 'site', 'site-1');
    expect(targetSigningSecret(secret, 'inst-a', 'site', 'site-1')).toBe(a);
    expect(
      new Set([
        a,
        targetSigningSecret(secret, 'inst-b', 'site', 'site-1'),
        targetSigningSecret(secret, 'inst-a', 'site', 'site-2'),
        targetSigningSecret(secret, 'inst-a', 'space', 'site-1'),
        installationSigningSecret(secret, 'inst-a'),
        secret,
      ]).size,
    ).toBe(6);
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
