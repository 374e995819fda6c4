import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ScriptScope } from '../../../common/access/script-access';
import { NotForSiteTokens } from '../../../common/access/site-access';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { SpaceAccess } from '../../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../../access/route-access.guard';
import { User } from '../../users/user.entity';
import { ExportToGitRepositoryDto, ImportGitRepositoryDto } from './git-sync.dto';
import { GitSyncService } from './git-sync.service';

/**
 * Git Sync with repositories on the server's disk. Both routes answer 204 once the operation is
 * queued (`content.git-sync` job); an import shows as the space's new revision, whose `git` names
 * the commit. Needs `triggerGitSync` on the space (edit, not locked).
 */
@ApiTags('space-git')
@ApiBearerAuth()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/git')
@SpaceAction('triggerGitSync')
@ScriptScope('space:git:sync')
export class GitSyncController {
  constructor(private readonly sync: GitSyncService) {}

  @Post('export')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'exportToGitRepository',
    summary: 'Export the space to a Git repository under the server’s GIT_SYNC_ROOT, as one commit on `ref` (queued; 204 when queued)',
  })
  @ApiNoContentResponse()
  async export(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Body() dto: ExportToGitRepositoryDto): Promise<void> {
    await this.sync.requestExport(user, access, dto);
  }

  @Post('import')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'importGitRepository',
    summary: 'Replace the space’s content with a commit of a Git repository under the server’s GIT_SYNC_ROOT (queued; 204 when queued)',
  })
  @ApiNoContentResponse()
  async import(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Body() dto: ImportGitRepositoryDto): Promise<void> {
    await this.sync.requestImport(user, access, dto);
  }
}
