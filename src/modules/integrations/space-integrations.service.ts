import { Injectable } from '@nestjs/common';
import type { SpaceAccess } from '../access/space-access.service';
import type { User } from '../users/user.entity';
import type { IntegrationBlock } from './integration.read-model';
import { InstallationsRepository } from './installations.repository';
import { IntegrationsService } from './integrations.service';
import { PublishedScriptsService } from './published-scripts.service';

/** What the integrations installed on a space offer it. */
@Injectable()
export class SpaceIntegrationsService {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly integrations: IntegrationsService,
    private readonly scriptsService: PublishedScriptsService,
  ) {}

  async installed(user: User, access: SpaceAccess, search?: string) {
    const installed = await this.installations.onSpace(access.space.id, access.space.organizationId);
    return this.integrations.list(user, { limit: 1000, search }, [...new Set(installed.map((i) => i.integrationId))]);
  }

  async blocks(user: User, access: SpaceAccess): Promise<{ name: string; blocks: IntegrationBlock[] }[]> {
    const { value } = await this.installed(user, access);
    return value.items
      .filter(({ integration }) => integration.blocks.length > 0)
      .map(({ integration }) => ({ name: integration.name, blocks: integration.blocks }));
  }

  scripts(access: SpaceAccess) {
    return this.scriptsService.scriptsOf('space', access.space.id);
  }
}
