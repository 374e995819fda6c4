import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TokensModule } from '../../modules/tokens/tokens.module';
import { BearerTokenGuard } from './bearer-token.guard';

@Module({
  imports: [TokensModule],
  providers: [{ provide: APP_GUARD, useClass: BearerTokenGuard }],
})
export class AuthModule {}
