import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user who created or wrote to a change request (the list's `contributor` filter). */
@Entity('change_request_contributors')
export class ChangeRequestContributor {
  @PrimaryColumn('text')
  changeRequestId: string;

  @PrimaryColumn('text')
  userId: string;

  /** Content writes by this user (`getContributorsByChangeRequestId`). */
  @Column('integer', { default: 1 })
  edits: number;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  updatedAt: Date;
}
