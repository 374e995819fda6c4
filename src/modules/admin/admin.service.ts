import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuditRecorder } from '../../common/audit/audit-recorder';
import type { AuditActor, AuditSource } from '../../common/audit/audit.context';
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

/**
 * Who the admin CLI and the start-up bootstrap act as in the audit log: the server's operator, with access no API
 * caller has (the public schema's `support` actor and source).
 */
const OPERATOR: { actor: AuditActor; source: AuditSource } = { actor: { type: 'support', id: 'operator', label: 'Quire operator' }, source: 'support' };

/** Operator actions behind the admin CLI and the start-up bootstrap; no HTTP route reaches them. */
@Injectable()
export class AdminService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly organizationsRepository: OrganizationsRepository,
    private readonly tokens: TokensService,
    private readonly audit: AuditRecorder,
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
      if (!existing) {
        await this.audit.record(em, {
          organizationId,
          action: 'organization.created',
          target: { type: 'organization', id: organizationId, label: input.orgTitle },
          details: { adminUserId: user.id },
          ...OPERATOR,
        });
      }
      if (input.token && (await this.tokens.exists(input.token, em))) {
        return { organizationId, userId: user.id, token: null };
      }
      const token = await this.tokens.issueToken(user.id, { label: 'bootstrap', secret: input.token, manager: em });
      await this.recordTokens(em, 'api_token.created', user.id, [token]);
      return { organizationId, userId: user.id, token: token.secret };
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
      await this.audit.record(em, {
        organizationId: input.organizationId,
        action: 'member.added',
        target: { type: 'user', id: user.id, label: user.displayName || user.email },
        changes: [{ field: 'role', after: input.role }],
        ...OPERATOR,
      });
      const token = await this.tokens.issueToken(user.id, { label: 'cli', manager: em });
      await this.recordTokens(em, 'api_token.created', user.id, [token]);
      return { userId: user.id, token: token.secret };
    });
  }

  async createToken(email: string): Promise<{ token: string }> {
    const user = await this.users.findByEmail(email);
    if (!user) throw userError('user.not_found', `No user with e-mail ${email}`);
    return this.dataSource.transaction(async (em) => {
      const token = await this.tokens.issueToken(user.id, { label: 'cli', manager: em });
      await this.recordTokens(em, 'api_token.created', user.id, [token]);
      return { token: token.secret };
    });
  }

  /** Revokes the token whose secret this is (a leaked one), or every token of the user with this e-mail. */
  async revokeTokens(which: { secret: string } | { email: string }): Promise<{ revoked: number }> {
    return this.dataSource.transaction(async (em) => {
      let selector: { secret: string } | { userId: string };
      if ('email' in which) {
        const user = await this.users.findByEmail(which.email);
        if (!user) throw userError('user.not_found', `No user with e-mail ${which.email}`);
        selector = { userId: user.id };
      } else selector = which;
      const revoked = await this.tokens.revoke(selector, em);
      // A secret that names no token is a mistyped one, or one revoked already: the operator must know.
      if ('secret' in selector && revoked.length === 0) throw adminError('admin.token_not_found', 'No API token has this secret (revoked already?)');
      // One user's tokens either way: the secret's one token, or every token of the e-mail's user.
      if (revoked.length > 0) await this.recordTokens(em, 'api_token.revoked', revoked[0].userId, revoked);
      return { revoked: revoked.length };
    });
  }

  /**
   * An event per token in every organization `userId` (the tokens' user) belongs to, where the tokens can act, by
   * their id and label, never their secret. A user of no organization leaves none.
   */
  private async recordTokens(
    em: EntityManager,
    action: 'api_token.created' | 'api_token.revoked',
    userId: string,
    tokens: { id: string; label: string | null }[],
  ): Promise<void> {
    const organizationIds = await this.organizationsRepository.organizationIdsOf(userId, em);
    for (const token of tokens) {
      for (const organizationId of organizationIds) {
        await this.audit.record(em, {
          organizationId,
          action,
          target: { type: 'api-token', id: token.id, label: token.label },
          details: { userId },
          ...OPERATOR,
        });
      }
    }
  }
}
