import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { EntityManager } from 'typeorm';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import type { User } from '../users/user.entity';
import { EventsService } from './events.service';
import { InstallationsRepository } from './installations.repository';

/**
 * `space_content_updated`: whenever a space's active revision changes (import, merge, restore),
 * one event per active installation covering the space, queued in the same transaction.
 */
@Injectable()
export class SpaceContentListener implements OnModuleInit {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly installations: InstallationsRepository,
    private readonly events: EventsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.spaceWrites.onRevisionActivated((change, em) => this.revisionActivated(change, em));
  }

  private async revisionActivated(change: { spaceId: string; revisionId: string; actor: User | null }, em: EntityManager): Promise<void> {
    const organizationId = await this.installations.spaceOrganization(change.spaceId, em);
    if (!organizationId) return;
    const updatedBy = change.actor
      ? [
          {
            object: 'user',
            id: change.actor.id,
            displayName: change.actor.displayName,
            email: change.actor.email,
            ...(change.actor.photoUrl ? { photoURL: change.actor.photoUrl } : {}),
            urls: { location: this.config.apiUrl(`/v1/users/${change.actor.id}`) },
          },
        ]
      : [];
    for (const { installationId, integrationId } of await this.installations.onSpace(change.spaceId, organizationId, em)) {
      await this.events.emit(
        {
          integrationId,
          installationId,
          payload: { type: 'space_content_updated', installationId, spaceId: change.spaceId, revisionId: change.revisionId, updatedBy },
        },
        em,
      );
    }
  }
}
