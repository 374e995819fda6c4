import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenUnscoped } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import type { User } from '../users/user.entity';
import { RenderIntegrationDto, RenderQueryDto } from './dto/render.dto';
import { IntegrationNamePipe } from './integration-name.pipe';
import { RenderService } from './render.service';

/** Rendering an integration's UI: the script's `ui_render` answer, as it gave it (section 2.24), cached as its `setCache` asked. */
@ApiTags('integrations')
@ApiBearerAuth()
@ApiParam({ name: 'integrationName' })
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/integrations/:integrationName/render')
export class RenderController {
  constructor(private readonly render: RenderService) {}

  @Post()
  @HttpCode(200)
  @SiteTokenUnscoped()
  @ApiOperation({ operationId: 'renderIntegrationUIWithPost', summary: 'Render a component (actions round-trip with the state)' })
  @ApiOkResponse({ schema: publicSchema('ContentKitRenderOutput') })
  async post(
    @CurrentUser() user: User,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Body() dto: RenderIntegrationDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const { output, cacheControl } = await this.render.render(user, name, dto);
    res.setHeader('Cache-Control', cacheControl);
    return output;
  }

  @Get()
  @ApiOperation({ operationId: 'renderIntegrationUIWithGet', summary: 'Render a component from an LZ-compressed request' })
  @ApiOkResponse({ schema: publicSchema('ContentKitRenderOutput') })
  async get(
    @CurrentUser() user: User,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: RenderQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const { output, cacheControl } = await this.render.render(user, name, await this.render.decode(query.request));
    res.setHeader('Cache-Control', cacheControl === 'no-store' ? 'private, no-store' : cacheControl);
    return output;
  }
}
