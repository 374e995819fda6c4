import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE_END, CATALOGUE_START, renderAuditCatalogue } from '../../scripts/audit-catalogue';
import { AUDIT_ACTIONS, AUDITED_ROUTES } from '../../src/common/audit/audit-catalogue';
import { summarizeChanges } from '../../src/common/audit/audit-changes';
import { beforeRow } from '../../src/common/audit/audit.subscriber';
import { uuidv7 } from '../../src/common/audit/uuid7';

/** Table cells without the padding prettier adds. */
const normalize = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => (/^\|[\s|:-]+\|$/.test(line) ? '|---|' : line.replace(/\s*\|\s*/g, '|')))
    .join('\n');

describe('audit catalogue', () => {
  it('docs/modules/audit.md lists exactly the actions and routes of the code (npm run -s audit:catalogue)', () => {
    const page = readFileSync(join(__dirname, '../../docs/modules/audit.md'), 'utf8');
    const section = page.slice(page.indexOf(CATALOGUE_START) + CATALOGUE_START.length, page.indexOf(CATALOGUE_END));
    expect(normalize(section)).toBe(normalize(renderAuditCatalogue()));
  });

  it('names actions resource.verb, each with a label', () => {
    for (const { id, label } of AUDIT_ACTIONS) {
      expect(id).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(label.length).toBeGreaterThan(3);
    }
    for (const route of Object.values(AUDITED_ROUTES)) if ('action' in route) expect(AUDIT_ACTIONS.map((a) => a.id)).toContain(route.action);
  });
});

describe('audit changes', () => {
  it('names every field; copies before/after only for short non-secret scalars', () => {
    const changes = summarizeChanges(
      { title: 'New', visibility: 'public', token: 'abc', clientSecret: 's', body: { markdown: 'x' }, emoji: null, long: 'x'.repeat(201) },
      { title: 'Old', visibility: 'private', token: 'old' },
    );
    expect(changes).toEqual([
      { field: 'title', before: 'Old', after: 'New' },
      { field: 'visibility', before: 'private', after: 'public' },
      { field: 'token' },
      { field: 'clientSecret' },
      { field: 'body' },
      { field: 'emoji', after: null },
      { field: 'long' },
    ]);
  });

  it('records nothing for a body that is not an object', () => {
    expect(summarizeChanges(undefined)).toEqual([]);
    expect(summarizeChanges([1, 2])).toEqual([]);
  });
});

describe('uuidv7', () => {
  it('is a version 7 UUID whose first 48 bits are the time, so later ids sort after', () => {
    const first = uuidv7(1_700_000_000_000);
    const later = uuidv7(1_700_000_000_001);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.replace(/-/g, '').slice(0, 12)).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
    expect(later > first).toBe(true);
  });
});

describe('audit before rows', () => {
  const row = (table: string, fields: Record<string, unknown>) => ({ table, row: fields });

  it('takes the loaded row that is the target (id, or a foreign key naming it) and holds the most body fields', () => {
    const loaded = [
      row('users', { id: 'u1', displayName: 'Ada' }),
      row('memberships', { organizationId: 'o1', userId: 'u1', role: 'read' }),
      row('organizations', { id: 'o1', title: 'Org', role: 'x' }),
    ];
    expect(beforeRow(loaded, 'u1', { role: 'edit' })).toEqual({ organizationId: 'o1', userId: 'u1', role: 'read' });
    expect(beforeRow(loaded, 'o1', { title: 'New' })).toEqual({ id: 'o1', title: 'Org', role: 'x' });
    expect(beforeRow(loaded, 'nobody', { role: 'edit' })).toBeUndefined();
    expect(beforeRow(loaded, 'u1', { unknownField: 1 })).toBeUndefined();
  });

  it('a value sent unchanged has no before', () => {
    expect(summarizeChanges({ title: 'Same', visibility: 'public' }, { title: 'Same', visibility: 'private' })).toEqual([
      { field: 'title', after: 'Same' },
      { field: 'visibility', before: 'private', after: 'public' },
    ]);
  });
});
