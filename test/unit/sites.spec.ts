import {
  adaptiveSchemaProblem,
  claimsOf,
  conditionHolds,
  conditionProblem,
  EMPTY_ADAPTIVE_SCHEMA,
  templateConditions,
  visitorClaims,
} from '../../src/modules/sites/adaptive-content';
import { sitePermissions } from '../../src/modules/sites/site.policy';
import { reorder, slugOf, uniquePath } from '../../src/modules/sites/structure-order';

const SCHEMA = {
  type: 'object',
  properties: {
    isBeta: { type: 'boolean', description: 'Beta' },
    unsigned: {
      type: 'object',
      description: 'Unsigned claims of the site visitor.',
      properties: { trial: { type: 'boolean', description: 'Trial' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

describe('adaptive schema', () => {
  it('accepts boolean claims with an optional unsigned object, and the empty schema', () => {
    expect(adaptiveSchemaProblem(SCHEMA)).toBeNull();
    expect(adaptiveSchemaProblem(EMPTY_ADAPTIVE_SCHEMA)).toBeNull();
    expect(adaptiveSchemaProblem({ ...SCHEMA, $id: 'https://example.com/visitor', $schema: 'http://json-schema.org/draft-07/schema#' })).toBeNull();
  });

  it.each([
    ['a non-object', [], /must be an object/],
    ['a string claim', { ...SCHEMA, properties: { plan: { type: 'string', description: 'p' } } }, /properties\/plan/],
    ['a claim name with a dot', { ...SCHEMA, properties: { 'a.b': { type: 'boolean', description: 'x' } } }, /property name/],
    ['a missing additionalProperties', { type: 'object', properties: {} }, /additionalProperties/],
    ['an invalid draft-07 keyword value', { ...SCHEMA, minProperties: -1 }, /draft-07/],
    ['a 2020-12 dialect', { ...SCHEMA, $schema: 'https://json-schema.org/draft/2020-12/schema' }, /\$schema/],
  ])('names the problem of %s', (_case, schema, pattern) => {
    expect(adaptiveSchemaProblem(schema)).toMatch(pattern);
  });

  it('derives claims and template conditions, signed first', () => {
    expect(claimsOf(SCHEMA).map((claim) => claim.path)).toEqual(['visitor.claims.isBeta', 'visitor.claims.unsigned.trial']);
    expect(templateConditions(SCHEMA)).toEqual([
      { description: 'Beta', condition: 'visitor.claims.isBeta === true' },
      { description: 'Trial', condition: 'visitor.claims.unsigned.trial === true' },
    ]);
    expect(templateConditions(null)).toEqual([]);
  });
});

describe('conditions', () => {
  it('accepts expressions that parse, declared claims or not (an undeclared claim is absent when evaluated)', () => {
    for (const condition of [
      'visitor.claims.isBeta',
      '!visitor.claims.unsigned.trial',
      'visitor.claims.isBeta === true && (visitor.claims.unsigned.trial || false)',
      'visitor.claims.isBeta ? true : false',
      'visitor.claims.isAdmin',
      'visitor.claims.plan === "pro"',
    ]) {
      expect(conditionProblem(condition)).toBeNull();
    }
  });

  it('refuses only what does not parse', () => {
    expect(conditionProblem('visitor.claims.isBeta &&')).toMatch(/syntax error/);
    expect(conditionProblem('visitor.claims.(')).toMatch(/syntax error/);
    expect(conditionProblem('a b')).toMatch(/syntax error/);
  });

  it('evaluates over the claims: absent claims are undefined, calls and other identifiers hide the item', () => {
    const claims = visitorClaims(SCHEMA, { isBeta: true, plan: 'pro' }, { trial: true, forged: true });
    expect(claims).toEqual({ isBeta: true, plan: 'pro', unsigned: { trial: true } });
    expect(conditionHolds(null, claims)).toBe(true);
    expect(conditionHolds('visitor.claims.isBeta', claims)).toBe(true);
    expect(conditionHolds('visitor.claims.isAdmin', claims)).toBe(false);
    expect(conditionHolds('!visitor.claims.isAdmin', claims)).toBe(true);
    expect(conditionHolds('visitor.claims.plan === "pro" && visitor.claims.unsigned.trial', claims)).toBe(true);
    expect(conditionHolds('visitor.claims.unsigned.forged', claims)).toBe(false);
    expect(conditionHolds('visitor.claims.isBeta ? visitor.claims.plan == "free" : true', claims)).toBe(false);
    expect(conditionHolds('alert(1)', claims)).toBe(false);
    expect(conditionHolds('process', claims)).toBe(false);
    expect(conditionHolds('visitor.claims["isBeta"]', claims)).toBe(false);
    expect(conditionHolds('visitor.claims.isBeta &&', claims)).toBe(false);
  });
});

describe('structure order', () => {
  const items = ['a', 'b', 'c'].map((id) => ({ type: 'site-space', id }));
  const ids = (list: { id: string }[] | null) => list?.map((item) => item.id) ?? null;

  it('places before or after a sibling, or at the end', () => {
    expect(ids(reorder(items, items[0], { after: items[2] }))).toEqual(['b', 'c', 'a']);
    expect(ids(reorder(items, items[2], { before: items[0] }))).toEqual(['c', 'a', 'b']);
    expect(ids(reorder(items, items[0]))).toEqual(['b', 'c', 'a']);
    expect(ids(reorder(items, items[1], { after: items[0] }))).toEqual(['a', 'b', 'c']);
  });

  it('refuses a pointer to the item itself or outside the level', () => {
    expect(reorder(items, items[0], { before: items[0] })).toBeNull();
    expect(reorder(items, items[0], { before: { type: 'site-section', id: 'b' } })).toBeNull();
  });

  it('makes paths from titles and keeps them unique', () => {
    expect(slugOf('User Guide — v2!', 'space')).toBe('user-guide-v2');
    expect(slugOf('🎉', 'space')).toBe('space');
    expect(slugOf('x'.repeat(200), 'space')).toHaveLength(90);
    expect(uniquePath('guide', new Set(['guide', 'guide-2']))).toBe('guide-3');
    expect(uniquePath('guide', new Set())).toBe('guide');
  });
});

describe('site policy', () => {
  it('lets members read, creators manage the structure and admins everything; guests nothing', () => {
    expect(sitePermissions('read')).toMatchObject({
      view: true,
      edit: false,
      create: false,
      admin: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: false,
    });
    expect(sitePermissions('create')).toMatchObject({ view: true, edit: true, create: true, admin: false });
    expect(sitePermissions('admin')).toMatchObject({ create: true, admin: true, editAdaptiveSchema: true, installIntegration: true });
    expect(Object.values(sitePermissions(null)).every((allowed) => allowed === false)).toBe(true);
  });
});
