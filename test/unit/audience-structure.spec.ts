import { siteSpaceCount, structureForAudience } from '../../src/modules/sites/audience-structure';
import type { SectionGroupRow, SectionRow, SiteSpaceRow, StructureRow } from '../../src/modules/sites/site.read-model';

/** A site space row with only what the filter reads (condition, default) and an id to follow it by. */
const siteSpace = (id: string, condition: string | null, isDefault = false): SiteSpaceRow =>
  ({ siteSpace: { id, condition, isDefault }, space: { id: `space-${id}` }, sectionPath: null }) as unknown as SiteSpaceRow;
const section = (id: string, condition: string | null, isDefault: boolean, siteSpaces: SiteSpaceRow[]): SectionRow =>
  ({ section: { id, condition, isDefault }, siteSpaces }) as unknown as SectionRow;
const group = (id: string, sections: SectionRow[]): SectionGroupRow => ({ group: { id }, sections }) as unknown as SectionGroupRow;

/** The structure as [id, default] pairs, groups and sections nested, to compare with what is written out. */
function shape(structure: StructureRow): unknown {
  const spaces = (rows: SiteSpaceRow[]) => rows.map((row) => [row.siteSpace.id, row.siteSpace.isDefault]);
  const sectionShape = (row: SectionRow) => [row.section.id, row.section.isDefault, spaces(row.siteSpaces)];
  if (structure.type === 'siteSpaces') return spaces(structure.items);
  return structure.items.map((item) => ('group' in item ? [item.group.id, item.sections.map(sectionShape)] : sectionShape(item)));
}

const STAFF = 'visitor.claims.staff === true';
const BETA = 'visitor.claims.beta === true';

describe('structureForAudience (what a site token sees of its site)', () => {
  const sections: StructureRow = {
    type: 'sections',
    items: [
      section('guides', null, true, [siteSpace('v2', STAFF, true), siteSpace('v1', null), siteSpace('beta', BETA)]),
      group('more', [section('api', STAFF, false, [siteSpace('api', null, true)]), section('labs', null, false, [siteSpace('labs', BETA, true)])]),
      section('faq', null, false, [siteSpace('faq', null, true)]),
    ],
  };

  it('leaves out what a false condition hides, and what is left empty; a hidden default gives way to the first shown', () => {
    expect(shape(structureForAudience(sections, {}))).toEqual([
      ['guides', true, [['v1', true]]],
      ['faq', false, [['faq', true]]],
    ]);
    expect(shape(structureForAudience(sections, { beta: true }))).toEqual([
      [
        'guides',
        true,
        [
          ['v1', true],
          ['beta', false],
        ],
      ],
      ['more', [['labs', false, [['labs', true]]]]],
      ['faq', false, [['faq', true]]],
    ]);
    expect(siteSpaceCount(structureForAudience(sections, { beta: true }))).toBe(4);
    expect(siteSpaceCount(structureForAudience(sections, { staff: true, beta: true }))).toBe(6);
  });

  it('a hidden default section gives way to the first section shown, inside a group too', () => {
    const hiddenDefault: StructureRow = {
      type: 'sections',
      items: [section('guides', STAFF, true, [siteSpace('g', null, true)]), group('more', [section('api', null, false, [siteSpace('a', null, true)])])],
    };
    expect(shape(structureForAudience(hiddenDefault, {}))).toEqual([['more', [['api', true, [['a', true]]]]]]);
    // The input is not changed: a member's view of the same rows keeps its defaults.
    expect(shape(hiddenDefault)).toEqual([
      ['guides', true, [['g', true]]],
      ['more', [['api', false, [['a', true]]]]],
    ]);
  });

  it('a site without sections: its site spaces, filtered', () => {
    const flat: StructureRow = { type: 'siteSpaces', items: [siteSpace('a', BETA, true), siteSpace('b', null), siteSpace('c', STAFF)] };
    expect(shape(structureForAudience(flat, {}))).toEqual([['b', true]]);
    expect(shape(structureForAudience(flat, { beta: true }))).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(shape(structureForAudience({ type: 'siteSpaces', items: [siteSpace('c', STAFF, true)] }, {}))).toEqual([]);
  });
});
