import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { LinkEmbedJson } from './embed-html';

export interface CachedEmbed {
  embed: LinkEmbedJson;
  ok: boolean;
  ageMs: number;
}

/** The `embed_cache` table: one row per URL (by its SHA-256), replaced when it is fetched again. */
@Injectable()
export class EmbedsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(urlHash: string): Promise<CachedEmbed | null> {
    const rows: CachedEmbed[] = await this.dataSource.query(
      `SELECT embed, ok, (extract(epoch FROM now() - fetched_at) * 1000)::float8 AS "ageMs" FROM embed_cache WHERE url_hash = $1`,
      [urlHash],
    );
    return rows[0] ?? null;
  }

  async save(urlHash: string, url: string, embed: LinkEmbedJson, ok: boolean): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO embed_cache (url_hash, url, embed, ok, fetched_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (url_hash) DO UPDATE SET embed = EXCLUDED.embed, ok = EXCLUDED.ok, fetched_at = EXCLUDED.fetched_at`,
      [urlHash, url, JSON.stringify(embed), ok],
    );
  }

  /** Deletes rows fetched longer than `days` ago; answers how many. */
  async purgeOlderThan(days: number): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(`DELETE FROM embed_cache WHERE fetched_at < now() - make_interval(days => $1)`, [days]);
    return count;
  }
}
