import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';
import { ApiToken } from './api-token.entity';

@Module({
  imports: [TypeOrmModule.forFeature([ApiToken])],
  providers: [TokensRepository, TokensService],
  exports: [TokensService],
})
export class TokensModule {}
