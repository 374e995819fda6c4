import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { SpaceAccess } from '../access/space-access.service';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ChangeRequest } from './change-request.entity';
import { changeRequestError } from './change-request.errors';
import { CHANGE_REQUEST_POLICY, counterDelta } from './change-request.policy';
import type { ChangeRequestListView, ChangeRequestView } from './change-request.read-model';
import { ChangeRequestsRepository } from './change-requests.repository';
import { CreateChangeRequestDto, UpdateChangeRequestDto } from './dto/change-request.dto';
import { ListChangeRequestsQueryDto } from './dto/list-change-requests-query.dto';

/**
 * Change requests themselves: create, read, list, subject and status. Every write runs in the space's
 * unit of work, so numbers are given under the space's lock and the space's counters move with the
 * status in the same transaction. Other modules (comments) use `resolve`.
 */
@Injectable()
export class ChangeRequestsService {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly changeRequests: ChangeRequestsRepository,
    private readonly users: UsersService,
  ) {}

  /** The change request `idOrNumber` of the space (its id, or its number in the space); 404 otherwise. */
  async resolve(spaceId: string, idOrNumber: string, manager?: EntityManager, lock = false): Promise<ChangeRequest> {
    const found = await this.changeRequests.find(spaceId, idOrNumber, manager, lock);
    if (!found) throw changeRequestError('change_request.not_found', `Change request ${idOrNumber} not found in space ${spaceId}`);
    return found;
  }

  async create(user: User, access: SpaceAccess, dto: CreateChangeRequestDto): Promise<ChangeRequestView> {
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const number = await write.nextChangeRequestNumber();
      const changeRequest = await this.changeRequests.insert(
        {
          id: newId(),
          spaceId: write.space.id,
          number,
          status: 'open',
          subject: dto.subject ?? '',
          agentTaskId: dto.agentTaskId ?? null,
          createdBy: user.id,
          revisionInitial: write.space.revisionId,
          revision: write.space.revisionId,
          revisionMergedAncestor: null,
          revisionMerged: null,
          mergedAt: null,
          mergedBy: null,
        },
        write.em,
      );
      await this.changeRequests.addContributor(changeRequest.id, user.id, write.em);
      await write.count(counterDelta(undefined, 'open'));
      return this.view(user, changeRequest, write.access, write.space.revisionId);
    });
  }

  async get(user: User, access: SpaceAccess, idOrNumber: string): Promise<ChangeRequestView> {
    return this.view(user, await this.resolve(access.space.id, idOrNumber), access);
  }

  async list(user: User, access: SpaceAccess, query: ListChangeRequestsQueryDto): Promise<ChangeRequestListView> {
    const page = await this.changeRequests.list(access.space.id, query.status, query);
    const people = page.items.flatMap((cr) => [cr.createdBy, cr.mergedBy]);
    return { page, ...(await this.context(user, access, people)) };
  }

  /** Subject and status (`draft` ↔ `open` ↔ `archived`; a merged change request keeps `merged`: 409). */
  async update(user: User, access: SpaceAccess, idOrNumber: string, dto: UpdateChangeRequestDto): Promise<ChangeRequestView> {
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const current = await this.resolve(write.space.id, idOrNumber, write.em, true);
      const changes: Partial<ChangeRequest> = {};
      if (dto.subject !== undefined) changes.subject = dto.subject;
      if (dto.status !== undefined && dto.status !== current.status) {
        if (current.status === 'merged')
          throw changeRequestError('change_request.merged', `Change request ${current.number} is merged: its status cannot change`);
        changes.status = dto.status;
        await write.count(counterDelta(current.status, dto.status));
      }
      const updated = Object.keys(changes).length > 0 ? await this.changeRequests.update(current.id, changes, write.em) : current;
      return this.view(user, updated, write.access, write.space.revisionId);
    });
  }

  /** What a change request is presented with. */
  async view(user: User, changeRequest: ChangeRequest, access: SpaceAccess, activeRevision = access.space.revisionId): Promise<ChangeRequestView> {
    const context = await this.context(user, access, [changeRequest.createdBy, changeRequest.mergedBy]);
    return { changeRequest, ...context, activeRevision };
  }

  private async context(user: User, access: SpaceAccess, userIds: (string | null)[]) {
    const users = await this.changeRequests.users(userIds);
    const emails = await this.users.emailVisibility(user.id, [...users.keys()]);
    return { organizationId: access.space.organizationId, activeRevision: access.space.revisionId, users, emails };
  }
}
