import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JOBS_SCHEMA } from './jobs.constants';

export interface QueueStateCount {
  name: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  count: number;
}

/** The queries of ours on pg-boss's tables (everything else goes through pg-boss's API). */
@Injectable()
export class JobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Jobs per queue and state, for the given queues; completed and failed jobs stay until pg-boss archives them (12 h). */
  async countByState(queues: string[]): Promise<QueueStateCount[]> {
    if (queues.length === 0) return [];
    return this.dataSource.query(
      `SELECT name, state::text AS state, count(*)::int AS count
         FROM ${JOBS_SCHEMA}.job
        WHERE name = ANY($1::text[])
        GROUP BY name, state`,
      [queues],
    );
  }
}
