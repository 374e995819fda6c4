import { Controller, Get, Param, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenUnscoped } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import { AppConfig } from '../../config/app-config';
import { presentUser, UserJson } from './user.presenter';
import { User } from './user.entity';
import { NO_EMAILS, ownEmail } from './user.policy';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  @Get('user')
  @ApiOperation({ operationId: 'getAuthenticatedUser', summary: 'Get the profile of the authenticated user' })
  @ApiOkResponse({ schema: publicSchema('User') })
  getAuthenticatedUser(@CurrentUser() user: User): UserJson {
    return presentUser(user, this.config, ownEmail(user.id));
  }

  @Get('users/:userId')
  @SiteTokenUnscoped()
  @ApiOperation({ operationId: 'getUserById', summary: 'Get a user who shares an organization with the caller' })
  @ApiOkResponse({ schema: publicSchema('User') })
  async getUserById(@Req() req: Request, @CurrentUser() viewer: User, @Param('userId') userId: string): Promise<UserJson> {
    // A site token (a reader of a published site): the public profile of someone of the site's organization, never an e-mail.
    const reader = req.sitePrincipal;
    if (reader) return presentUser(await this.users.getForSiteReader(reader.organizationId, userId), this.config, NO_EMAILS);
    const user = await this.users.getVisible(viewer, userId);
    return presentUser(user, this.config, await this.users.emailVisibility(viewer.id, [user.id]));
  }
}
