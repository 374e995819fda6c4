import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { listSchemaOf } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { TranslationSettingsDto } from './dto/translation-settings.dto';
import { TranslationSettings } from './translation-settings.entity';
import { translationSettingsPermissions } from './translation-settings.policy';
import { presentTranslationSettings, TranslationSettingsJson } from './translation-settings.presenter';
import { TranslationsService } from './translations.service';

/**
 * Translation settings follow section 2.18 of the API description, which differs from the public
 * description's `Translation` (a translation run): the operation ids are the public ones, the
 * shapes are documented here.
 */
const SETTINGS_SCHEMA = {
  type: 'object',
  required: ['object', 'id', 'title', 'languages', 'createdAt', 'updatedAt', 'permissions', 'urls'],
  properties: {
    object: { type: 'string', enum: ['translation-settings'] },
    id: { type: 'string' },
    title: { type: 'string', minLength: 1, maxLength: 100 },
    languages: { type: 'array', items: { type: 'string', description: 'BCP 47 language tag' } },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    permissions: { type: 'object', required: ['view', 'edit'], properties: { view: { type: 'boolean' }, edit: { type: 'boolean' } } },
    urls: { type: 'object', required: ['location'], properties: { location: { type: 'string', format: 'uri' } } },
  },
};

@ApiTags('translations')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/translations')
export class TranslationsController {
  constructor(
    private readonly translations: TranslationsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listTranslations', summary: 'List the translation settings of an organization' })
  @ApiResponse({
    status: 200,
    schema: listSchemaOf(SETTINGS_SCHEMA),
  })
  async list(@CurrentMembership() caller: Membership, @Query() query: ListQueryDto) {
    return mapPage(await this.translations.list(caller, query), (settings) => this.present(caller, settings));
  }

  @Post()
  @HttpCode(201)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'createTranslation', summary: 'Create translation settings (admins only)' })
  @ApiResponse({ status: 201, schema: SETTINGS_SCHEMA })
  async create(
    @CurrentMembership() caller: Membership,
    @Body() dto: TranslationSettingsDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TranslationSettingsJson> {
    const json = this.present(caller, await this.translations.create(caller, dto));
    res.location(json.urls.location);
    return json;
  }

  @Get(':translationSettingsId')
  @ApiOperation({ operationId: 'getTranslation', summary: 'Get translation settings' })
  @ApiResponse({ status: 200, schema: SETTINGS_SCHEMA })
  async get(@CurrentMembership() caller: Membership, @Param('translationSettingsId') id: string): Promise<TranslationSettingsJson> {
    return this.present(caller, await this.translations.get(caller, id));
  }

  @Put(':translationSettingsId')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateTranslation', summary: 'Replace the title (and languages, when given) of translation settings (admins only)' })
  @ApiResponse({ status: 200, schema: SETTINGS_SCHEMA })
  async replace(
    @CurrentMembership() caller: Membership,
    @Param('translationSettingsId') id: string,
    @Body() dto: TranslationSettingsDto,
  ): Promise<TranslationSettingsJson> {
    return this.present(caller, await this.translations.replace(caller, id, dto));
  }

  @Delete(':translationSettingsId')
  @HttpCode(205)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'deleteTranslation', summary: 'Delete translation settings (admins only)' })
  @ApiResponse({ status: 205, description: 'The settings were deleted' })
  async delete(@CurrentMembership() caller: Membership, @Param('translationSettingsId') id: string): Promise<void> {
    await this.translations.delete(caller, id);
  }

  private present(caller: Membership, settings: TranslationSettings): TranslationSettingsJson {
    return presentTranslationSettings(settings, translationSettingsPermissions(caller), this.config);
  }
}
