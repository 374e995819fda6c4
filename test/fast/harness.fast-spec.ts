import { DataSource } from 'typeorm';
import { SpacesService } from '../../src/modules/spaces/spaces.service';
import { createOrganization, createSpace, unique } from './support/builders';
import { useFastApp } from './support/fast-app';

describe('the fast tier harness', () => {
  const t = useFastApp();
  let remembered: string | undefined;

  it('commits a service transaction as a savepoint, visible to the rest of the test', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org, { title: 'Kept within the test' });
    remembered = org.id;
    const [row] = await t.get(DataSource).query(`SELECT title FROM spaces WHERE id = $1`, [space.id]);
    expect(row.title).toBe('Kept within the test');
  });

  it('rolls every test back: the previous test left nothing', async () => {
    expect(remembered).toBeDefined();
    expect(await t.get(DataSource).query(`SELECT 1 FROM organizations WHERE id = $1`, [remembered])).toEqual([]);
  });

  it('keeps the transaction usable after a failed statement outside a transaction', async () => {
    const dataSource = t.get(DataSource);
    await expect(dataSource.query(`SELECT 1 FROM spaces WHERE id = $1::int`, ['not a number'])).rejects.toThrow();
    expect(await dataSource.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('undoes a service transaction that throws, and only it', async () => {
    const org = await createOrganization(t);
    const dataSource = t.get(DataSource);
    const title = unique('Undone');
    await expect(
      dataSource.transaction(async (em) => {
        await em.query(`UPDATE organizations SET title = $1 WHERE id = $2`, [title, org.id]);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await dataSource.query(`SELECT 1 FROM organizations WHERE title = $1`, [title])).toEqual([]);
    expect(await dataSource.query(`SELECT 1 FROM organizations WHERE id = $1`, [org.id])).toHaveLength(1);
  });

  it('checks deferred constraints when a service transaction commits', async () => {
    const dataSource = t.get(DataSource);
    // spaces.revision_id references revisions DEFERRABLE INITIALLY DEFERRED: a real COMMIT would refuse this.
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    await expect(dataSource.transaction((em) => em.query(`UPDATE spaces SET revision_id = 'missing' WHERE id = $1`, [space.id]))).rejects.toThrow(
      /foreign key/,
    );
    expect((await t.get(SpacesService).update(org.admin.user, space.id, { title: 'Still usable' })).space.title).toBe('Still usable');
  });

  it('nests transactions that overlap in time, committing both', async () => {
    const org = await createOrganization(t);
    const dataSource = t.get(DataSource);
    const [first, second] = [unique('First'), unique('Second')];
    const write = (title: string, id: string) =>
      dataSource.transaction(async (em) => {
        await em.query(`UPDATE spaces SET title = $1 WHERE id = $2`, [title, id]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      });
    const [a, b] = [await createSpace(t, org), await createSpace(t, org)];
    await Promise.all([write(first, a.id), write(second, b.id)]);
    const rows: { title: string }[] = await dataSource.query(`SELECT title FROM spaces WHERE id = ANY($1) ORDER BY title`, [[a.id, b.id]]);
    expect(rows.map((row) => row.title)).toEqual([first, second].sort());
  });
});
