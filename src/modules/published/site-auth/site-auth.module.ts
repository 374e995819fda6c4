import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AUTHENTICATOR } from '../../../common/auth/authenticator';
import { ScriptAuthModule } from '../../integrations/script-auth/script-auth.module';
import { ServerSecret } from '../../members/server-secret.entity';
import { SiteTokenAuthenticator } from './site-token-authenticator';
import { SiteTokenKeys } from './site-token-keys';

/** Provides AUTHENTICATOR for the global bearer guard: site API tokens here, script and user tokens through ScriptAuthModule. */
@Module({
  imports: [TypeOrmModule.forFeature([ServerSecret]), ScriptAuthModule],
  providers: [SiteTokenKeys, SiteTokenAuthenticator, { provide: AUTHENTICATOR, useExisting: SiteTokenAuthenticator }],
  exports: [AUTHENTICATOR, SiteTokenKeys],
})
export class SiteAuthModule {}
