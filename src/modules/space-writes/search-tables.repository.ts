import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Seconds a DROP may wait for searches still reading a retired table before it fails (the job is retried). */
const LOCK_TIMEOUT = '5s';

/** The statements of the sweep of retired search tables (`SearchTablesJob`). */
@Injectable()
export class SearchTablesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The space search tables (`search_pages_<ulid>`) no `search_tables` row names. */
  async unnamed(): Promise<string[]> {
    const rows: { name: string }[] = await this.dataSource.query(
      `SELECT c.relname AS name
         FROM pg_class c
        WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
          AND c.relname ~ '^search_pages_[0-9a-z]{26}$'
          AND NOT EXISTS (SELECT 1 FROM search_tables t WHERE t.table_name = c.relname)`,
    );
    return rows.map((row) => row.name);
  }

  /** Drops the table in a short transaction of its own if it is still unnamed and no write holds it; whether it did. */
  dropIfRetired(name: string): Promise<boolean> {
    return this.dataSource.transaction(async (em) => {
      await em.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      // A table built apart for a revision still being written (SearchIndexWritesRepository.prepare) is
      // not named yet: that revision's transaction holds this lock until it ends.
      const [{ free }]: { free: boolean }[] = await em.query(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS free`, [name]);
      if (!free) return false;
      // Checked again now: a name is never registered again once retired, nor before its write commits.
      const named: unknown[] = await em.query(`SELECT 1 FROM search_tables WHERE table_name = $1`, [name]);
      if (named.length > 0) return false;
      await em.query(`DROP TABLE IF EXISTS "${name}"`);
      return true;
    });
  }
}
