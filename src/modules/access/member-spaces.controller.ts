import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { User } from '../users/user.entity';
import { MemberSpacesQueryDto } from './dto/member-spaces-query.dto';
import { MemberSpaceJson, presentMemberSpace } from './member-space.presenter';
import { MemberSpacesService } from './member-spaces.service';

@ApiTags('members')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/members/:userId/spaces')
@OrgRole('guest')
export class MemberSpacesController {
  constructor(
    private readonly memberSpaces: MemberSpacesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiParam({ name: 'organizationId' })
  @ApiOperation({ operationId: 'listSpacesForOrganizationMember', summary: "List the spaces a member can access, with the member's level on each" })
  @ApiOkResponse({ schema: publicListSchema('MemberContentPermission') })
  async list(
    @CurrentUser() user: User,
    @CurrentMembership() membership: Membership,
    @Param('userId') userId: string,
    @Query() query: MemberSpacesQueryDto,
  ): Promise<{ items: MemberSpaceJson[]; count: number; next?: { page: string } }> {
    const page = await this.memberSpaces.list(user, membership, userId, query);
    return mapPage(page, (item) => presentMemberSpace(item, this.config));
  }
}
