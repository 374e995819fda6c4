import { Module } from '@nestjs/common';
import { RevisionLifecycleService } from './revision-lifecycle.service';

@Module({
  providers: [RevisionLifecycleService],
  exports: [RevisionLifecycleService],
})
export class ContentModule {}
