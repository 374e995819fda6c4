import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AUTHENTICATOR } from '../../common/auth/authenticator';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';
import { ApiToken } from './api-token.entity';

@Module({
  imports: [TypeOrmModule.forFeature([ApiToken])],
  providers: [TokensRepository, TokensService, { provide: AUTHENTICATOR, useExisting: TokensService }],
  exports: [TokensService, AUTHENTICATOR],
})
export class TokensModule {}
