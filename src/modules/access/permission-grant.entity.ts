import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { MemberRole } from '../../common/roles';

/** An explicit role on one space or collection, for one user or one team (exactly one of each pair is set). */
@Entity('permission_grants')
export class PermissionGrant {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  @Column('text', { nullable: true })
  spaceId: string | null;

  @Column('text', { nullable: true })
  collectionId: string | null;

  @Column('text', { nullable: true })
  userId: string | null;

  @Column('text', { nullable: true })
  teamId: string | null;

  @Column('text')
  role: MemberRole;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
