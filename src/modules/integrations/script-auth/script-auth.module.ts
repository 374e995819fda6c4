import { Module } from '@nestjs/common';
import { AUTHENTICATOR } from '../../../common/auth/authenticator';
import { TokensModule } from '../../tokens/tokens.module';
import { ScriptTokenAuthenticator } from './script-authenticator';

/** Provides AUTHENTICATOR for the global bearer guard: user tokens (tokens module) and integration script tokens. */
@Module({
  imports: [TokensModule],
  providers: [ScriptTokenAuthenticator, { provide: AUTHENTICATOR, useExisting: ScriptTokenAuthenticator }],
  exports: [AUTHENTICATOR, ScriptTokenAuthenticator],
})
export class ScriptAuthModule {}
