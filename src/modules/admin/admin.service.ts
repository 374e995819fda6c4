import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { OrganizationsService } from '../organizations/organizations.service';
import { TokensService } from '../tokens/tokens.service';
import { UsersService } from '../users/users.service';
import { adminError } from './admin.errors';
import { organizationError } from '../organizations/organization.errors';
import { userError } from '../users/user.errors';

/** Serialises bootstraps across processes (replicas starting together, a CLI beside a server). */
const BOOTSTRAP_LOCK = 0x717569_02;

export interface BootstrapInput {
  orgTitle: string;
  email: string;
  name?: string;
  /** A token chosen by the operator (BOOTSTRAP_ADMIN_TOKEN); a new one is generated when absent. */
  token?: string;
}

export interface BootstrapResult {
  organizationId: string;
  userId: string;
  /** The token secret; null when the operator's token was already registered. */
  token: string | null;
}

/** Operator actions behind the admin CLI and the start-up bootstrap; no HTTP route reaches them. */
@Injectable()
export class AdminService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly organizationsRepository: OrganizationsRepository,
    private readonly tokens: TokensService,
  ) {}

  /**
   * Idempotent: the admin is found by e-mail and the organization by title among those they
   * administer, so running it again (at every container start) creates nothing new.
   */
  bootstrap(input: BootstrapInput): Promise<BootstrapResult> {
    return this.dataSource.transaction(async (em) => {
      await em.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
      const { user } = await this.users.findOrCreate(input.email, input.name, em);
      const existing = await this.organizationsRepository.findAdministeredByTitle(user.id, input.orgTitle, em);
      const organizationId = existing?.id ?? (await this.organizations.create(user, { title: input.orgTitle }, em)).organization.id;
      if (input.token && (await this.tokens.exists(input.token, em))) {
        return { organizationId, userId: user.id, token: null };
      }
      const token = await this.tokens.issue(user.id, { label: 'bootstrap', secret: input.token, manager: em });
      return { organizationId, userId: user.id, token };
    });
  }

  /** Adds a user (created if new) to an organization with a role, and issues them a token. */
  createUser(input: { organizationId: string; email: string; name?: string; role: MemberRoleOrGuest }): Promise<{ userId: string; token: string }> {
    return this.dataSource.transaction(async (em) => {
      if (!(await this.organizationsRepository.findById(input.organizationId, em))) {
        throw organizationError('organization.not_found', `Organization ${input.organizationId} not found`);
      }
      const { user } = await this.users.findOrCreate(input.email, input.name, em);
      if (await this.organizationsRepository.findMembership(input.organizationId, user.id, em)) {
        throw adminError('admin.already_member', `${input.email} is already a member of ${input.organizationId}`);
      }
      await this.organizationsRepository.insertMembership({ organizationId: input.organizationId, userId: user.id, role: input.role }, em);
      const token = await this.tokens.issue(user.id, { label: 'cli', manager: em });
      return { userId: user.id, token };
    });
  }

  async createToken(email: string): Promise<{ token: string }> {
    const user = await this.users.findByEmail(email);
    if (!user) throw userError('user.not_found', `No user with e-mail ${email}`);
    return { token: await this.tokens.issue(user.id, { label: 'cli' }) };
  }
}
