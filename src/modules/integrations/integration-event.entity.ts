import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { TraceLog } from './integration.read-model';

/** An event sent to an integration's script (section 2.23), with what its delivery recorded. */
@Entity('integration_events')
export class IntegrationEvent {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  integrationId: string;

  @Column('text', { nullable: true })
  installationId: string | null;

  @Column('jsonb')
  payload: Record<string, unknown> & { type: string; eventId: string };

  @Column('text')
  status: 'pending' | 'success' | 'failed';

  @Column('jsonb')
  logs: TraceLog[];

  @Column('text', { nullable: true })
  error: string | null;

  @Column('integer')
  attempts: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
