import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenUnscoped } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import { AppConfig } from '../../config/app-config';
import { presentUser, UserJson } from './user.presenter';
import { User } from './user.entity';
import { ownEmail } from './user.policy';
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
  async getUserById(@CurrentUser() viewer: User, @Param('userId') userId: string): Promise<UserJson> {
    const user = await this.users.getVisible(viewer, userId);
    return presentUser(user, this.config, await this.users.emailVisibility(viewer.id, [user.id]));
  }
}
