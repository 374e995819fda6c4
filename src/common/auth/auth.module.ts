import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { BearerTokenGuard } from './bearer-token.guard';

@Module({})
export class AuthModule {
  /** The global bearer guard; `authenticator` is the module exporting AUTHENTICATOR (the tokens module). */
  static forRoot(authenticator: Type<unknown>): DynamicModule {
    return {
      module: AuthModule,
      imports: [authenticator],
      providers: [{ provide: APP_GUARD, useClass: BearerTokenGuard }],
    };
  }
}
