import { targetAllowed } from '../../src/modules/integrations/integration.policy';
import { validateConfiguration, schemaProblem } from '../../src/modules/integrations/configuration-schema';
import { manifestProblem } from '../../src/modules/integrations/manifest-schema';
import { scriptScopeDecision } from '../../src/modules/integrations/script-auth/script-scope.policy';
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

describe('script scopes', () => {
  it('reads a space with a read scope, writes only with a write scope', () => {
    expect(scriptScopeDecision(principal(['space:content:read']), { family: 'space', write: false })).toBe('allow');
    expect(scriptScopeDecision(principal(['space:content:read']), { family: 'space', write: true })).toBe('forbidden');
    expect(scriptScopeDecision(principal(['space:content:write']), { family: 'space', write: true })).toBe('allow');
    expect(scriptScopeDecision(principal([]), { family: 'space', write: false })).toBe('forbidden');
  });
  it('sites need site scopes; the organization is read-only; other routes are beyond any scope', () => {
    expect(scriptScopeDecision(principal(['space:content:read']), { family: 'site', write: false })).toBe('forbidden');
    expect(scriptScopeDecision(principal(['site:script:inject']), { family: 'site', write: true })).toBe('allow');
    expect(scriptScopeDecision(principal([]), { family: 'organization', write: false })).toBe('allow');
    expect(scriptScopeDecision(principal(['space:content:write']), { family: 'organization', write: true })).toBe('forbidden');
    expect(scriptScopeDecision(principal(['space:content:write']), { family: 'other', write: false })).toBe('forbidden');
    expect(scriptScopeDecision(principal([]), { family: 'own-integration', write: true })).toBe('allow');
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
