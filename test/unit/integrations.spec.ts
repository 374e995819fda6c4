import { targetAllowed } from '../../src/modules/integrations/integration.policy';
import { validateConfiguration, schemaProblem } from '../../src/modules/integrations/configuration-schema';
import { manifestProblem } from '../../src/modules/integrations/manifest-schema';
import { INTEGRATION_SCOPES } from '../../src/common/access/script-access';
import { scriptAccessDecision, scriptBodyTargets } from '../../src/modules/integrations/script-auth/script-scope.policy';
import type { ScriptPrincipal } from '../../src/modules/integrations/script-auth/script-principal';
import { imageType } from '../../src/modules/integrations/integrations.service';

const principal = (scopes: string[]): ScriptPrincipal => ({
  integrationId: 'i',
  integrationName: 'n',
  installationId: 'x',
  organizationId: 'o',
  scopes,
  spaceSelection: 'selected',
  siteSelection: 'selected',
});

describe('script access decisions', () => {
  const get = { method: 'GET', installationRoute: false, body: undefined };
  it('a route without a declaration, or declared not callable, is refused whatever the scopes', () => {
    expect(scriptAccessDecision(principal([...INTEGRATION_SCOPES]), undefined, get)).not.toBe('allow');
    expect(scriptAccessDecision(principal([...INTEGRATION_SCOPES]), { script: 'none' }, get)).not.toBe('allow');
  });
  it('a scope route needs one of its scopes among those granted', () => {
    const decl = { script: 'scope', anyOf: ['space:content:read', 'space:content:write'] } as const;
    expect(scriptAccessDecision(principal(['space:content:read']), { ...decl, anyOf: [...decl.anyOf] }, get)).toBe('allow');
    expect(scriptAccessDecision(principal(['space:metadata:read']), { ...decl, anyOf: [...decl.anyOf] }, get)).not.toBe('allow');
    expect(scriptAccessDecision(principal([]), { ...decl, anyOf: [...decl.anyOf] }, get)).not.toBe('allow');
  });
  it('an organization-wide list of spaces needs an installation on every space', () => {
    const decl = { script: 'scope' as const, anyOf: ['space:metadata:read' as const], allSpaces: true as const };
    expect(scriptAccessDecision(principal(['space:metadata:read']), decl, get)).not.toBe('allow');
    expect(scriptAccessDecision({ ...principal(['space:metadata:read']), spaceSelection: 'all' }, decl, get)).toBe('allow');
  });
  it('its own installation without a scope; a PATCH of it changes configuration and externalIds only', () => {
    const patch = (body: object) => ({ method: 'PATCH', installationRoute: true, body });
    expect(scriptAccessDecision(principal([]), { script: 'installation' }, get)).toBe('allow');
    expect(scriptAccessDecision(principal([]), { script: 'installation' }, patch({ configuration: {}, externalIds: [] }))).toBe('allow');
    expect(scriptAccessDecision(principal([]), { script: 'installation' }, patch({ space_selection: 'all' }))).not.toBe('allow');
    // A space or site installation's PATCH has no selection to widen.
    expect(scriptAccessDecision(principal([]), { script: 'installation' }, { ...patch({ configuration: {} }), installationRoute: false })).toBe('allow');
  });
  it('body fields that name an organization, space, site or collection are targets like path parameters', () => {
    expect(scriptBodyTargets({ organization: 'o2', title: 't', parent: 'c1', space: '', siteId: 's' })).toEqual([
      { kind: 'organization', id: 'o2' },
      { kind: 'collection', id: 'c1' },
      { kind: 'site', id: 's' },
    ]);
    expect(scriptBodyTargets([{ organization: 'o2' }])).toEqual([]);
    expect(scriptBodyTargets({ parent: null })).toEqual([]);
    expect(scriptBodyTargets({ spaces: ['s1', 3, 's2'] })).toEqual([
      { kind: 'space', id: 's1' },
      { kind: 'space', id: 's2' },
    ]);
  });
});

describe('installation targets', () => {
  it('all allows every target; space and site only their own; organization installs are always possible', () => {
    expect(targetAllowed('all', 'space')).toBe(true);
    expect(targetAllowed('site', 'space')).toBe(false);
    expect(targetAllowed('site', 'site')).toBe(true);
    expect(targetAllowed('space', 'organization')).toBe(true);
  });
});

describe('configuration schemas', () => {
  const schema = { properties: { greeting: { type: 'string', default: 'hi' }, count: { type: 'number' } }, required: ['count'] };
  it('validates against the manifest schema, fills defaults, names the field', () => {
    expect(validateConfiguration(schema, { count: 1 })).toEqual({ ok: true, value: { count: 1, greeting: 'hi' } });
    const bad = validateConfiguration(schema, { greeting: 'x' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems).toMatch(/count/);
    expect(validateConfiguration(undefined, { anything: 1 })).toEqual({ ok: true, value: { anything: 1 } });
  });
  it('refuses a schema that does not compile', () => {
    expect(schemaProblem({ properties: { a: { type: 'nonsense' } } })).toMatch(/nonsense|type/);
    expect(schemaProblem(schema)).toBeNull();
    expect(schemaProblem([])).toBe('must be an object');
  });
});

describe('manifest parts and icons', () => {
  it('checks blocks, content sources and links as the public description writes them', () => {
    expect(manifestProblem({ blocks: [{ id: 'b', title: 'Block' }] })).toBeNull();
    expect(manifestProblem({ blocks: [{ id: 'b', title: 'B' }] })).toMatch(/^blocks\.0\.title/);
    expect(manifestProblem({ contentSources: [{ id: 'c', title: 'Source' }] })).toMatch(/configuration/);
    expect(manifestProblem({ externalLinks: [{ url: 'javascript:alert(1)', label: 'x' }] })).toMatch(/externalLinks/);
  });
  it('recognises image types by their bytes', () => {
    expect(imageType(Buffer.from('89504e470d0a1a0a00', 'hex'))).toBe('image/png');
    expect(imageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml');
    expect(imageType(Buffer.from('hello'))).toBeNull();
  });
});
