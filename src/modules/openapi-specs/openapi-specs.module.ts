import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { COMPUTED_CONTENT_RENDERER } from '../content/computed/computed-content.port';
import { OrganizationsModule } from '../organizations/organizations.module';
import { OpenApiComputedRenderer } from './openapi-computed.renderer';
import { OpenApiSpecVersionsController } from './openapi-spec-versions.controller';
import { OpenApiSpecsController } from './openapi-specs.controller';
import { OpenApiSpecsRepository } from './openapi-specs.repository';
import { OpenApiSpecsService } from './openapi-specs.service';
import { OpenApiSpecContent } from './openapi-spec-content.entity';
import { OpenApiSpecVersion } from './openapi-spec-version.entity';
import { OpenApiSpec } from './openapi-spec.entity';
import { SpecLoader } from './source/spec-loader';
import { SpecWorkers } from './source/spec-workers';

/**
 * OpenAPI specifications (issue 16). Global only to provide content's computed-page port
 * (`COMPUTED_CONTENT_RENDERER`, the one thing it exports): content cannot import this module, so
 * the dependency is inverted, and a global export is how a token crosses the module graph.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OpenApiSpec, OpenApiSpecVersion, OpenApiSpecContent]), OrganizationsModule, OutboundModule],
  controllers: [OpenApiSpecsController, OpenApiSpecVersionsController],
  providers: [
    OpenApiSpecsRepository,
    OpenApiSpecsService,
    SpecLoader,
    SpecWorkers,
    OpenApiComputedRenderer,
    { provide: COMPUTED_CONTENT_RENDERER, useExisting: OpenApiComputedRenderer },
  ],
  exports: [COMPUTED_CONTENT_RENDERER],
})
export class OpenApiSpecsModule {}
