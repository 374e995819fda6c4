import { Controller, Get, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../../src/app.module';
import { loadConfig } from '../../src/config/app-config';
import { SpaceAction } from '../../src/modules/access/route-access.guard';
import { OrgRole } from '../../src/modules/organizations/organization-member.guard';
import { declaredRoutes, routesOf, undeclared } from '../support/route-declarations';

@Controller('v1/spaces/:spaceId/forgotten')
class ForgetfulController {
  @Get()
  forgot(@Param('spaceId') spaceId: string) {
    return spaceId;
  }

  @Get('declared')
  @SpaceAction('view')
  declared() {
    return 'ok';
  }

  @Get('wrong-scope')
  @OrgRole('admin')
  wrongScope() {
    return 'no';
  }
}

describe('route access declarations', () => {
  let app: NestExpressApplication;
  beforeAll(async () => {
    // Preview mode: the modules and their metadata, no database.
    const config = loadConfig({ PUBLIC_URL: 'http://localhost:3000' });
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, 'postgres://preview@127.0.0.1/preview'), { preview: true, logger: false });
  });
  afterAll(() => app.close());

  it('finds a route on a space that declares no action, or the wrong scope', () => {
    expect(undeclared(routesOf([ForgetfulController]))).toEqual([
      'GET /v1/spaces/:spaceId/forgotten (ForgetfulController.forgot) declares nothing',
      'GET /v1/spaces/:spaceId/forgotten/wrong-scope (ForgetfulController.wrongScope) declares organization',
    ]);
  });

  it('every registered route with a :spaceId, :collectionId or :organizationId declares its action or role, and its guard runs', () => {
    const routes = declaredRoutes(app);
    const scoped = routes.filter((route) => route.scope !== null);
    expect(scoped.length).toBeGreaterThan(60);
    expect(undeclared(routes)).toEqual([]);
  });

  it('declares the thresholds the access model documents for the routes it names', () => {
    const byOperation = new Map(declaredRoutes(app).map((route) => [route.operationId, route.access]));
    expect(byOperation.get('getSpaceById')).toEqual({ scope: 'space', action: 'view' });
    expect(byOperation.get('updateSpaceById')).toEqual({ scope: 'space', action: 'admin' });
    expect(byOperation.get('restoreSpace')).toEqual({ scope: 'space', action: 'admin', includeDeleted: true });
    expect(byOperation.get('importContentInSpace')).toEqual({ scope: 'space', action: 'edit' });
    expect(byOperation.get('inviteToCollection')).toEqual({ scope: 'collection', action: 'admin' });
    expect(byOperation.get('updateOrganizationById')).toEqual({ scope: 'organization', role: 'admin' });
  });
});
