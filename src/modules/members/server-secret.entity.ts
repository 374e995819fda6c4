import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A secret generated once by whichever replica needs it first, then shared by all of them. */
@Entity('server_secrets')
export class ServerSecret {
  @PrimaryColumn('text')
  name: string;

  @Column('text')
  value: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
