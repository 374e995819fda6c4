import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeRequest } from './change-request.entity';

/** Change requests: branch, author, update from main, merge (section 4.5, 4.7). */
@Module({
  imports: [TypeOrmModule.forFeature([ChangeRequest])],
  exports: [TypeOrmModule],
})
export class ChangeRequestsModule {}
