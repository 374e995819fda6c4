import { adaptiveSchemaProblem, claimsOf, conditionProblem, EMPTY_ADAPTIVE_SCHEMA, templateConditions } from '../../src/modules/sites/adaptive-content';
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
  it('accepts expressions over declared claims and literals', () => {
    for (const condition of [
      'visitor.claims.isBeta',
      '!visitor.claims.unsigned.trial',
      'visitor.claims.isBeta === true && (visitor.claims.unsigned.trial || false)',
      'visitor.claims.isBeta ? true : false',
    ]) {
      expect(conditionProblem(condition, SCHEMA)).toBeNull();
    }
  });

  it('refuses syntax errors, undeclared claims, other identifiers, calls and computed members', () => {
    expect(conditionProblem('visitor.claims.isBeta &&', SCHEMA)).toMatch(/syntax error/);
    expect(conditionProblem('visitor.claims.isAdmin', SCHEMA)).toMatch(/visitor.claims.isAdmin is not a claim/);
    expect(conditionProblem('visitor.claims.isBeta', null)).toMatch(/not a claim/);
    expect(conditionProblem('process', SCHEMA)).toMatch(/process is not a claim/);
    expect(conditionProblem('alert(1)', SCHEMA)).toMatch(/CallExpression/);
    expect(conditionProblem('visitor.claims["isBeta"]', SCHEMA)).toMatch(/computed/);
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
