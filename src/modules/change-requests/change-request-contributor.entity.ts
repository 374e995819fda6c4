import { Entity, PrimaryColumn } from 'typeorm';

/** A user who created or wrote to a change request (the list's `contributor` filter). */
@Entity('change_request_contributors')
export class ChangeRequestContributor {
  @PrimaryColumn('text')
  changeRequestId: string;

  @PrimaryColumn('text')
  userId: string;
}
