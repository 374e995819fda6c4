import { Global, Module } from '@nestjs/common';
import { AuditScopeGuard } from './audit.guard';
import { AuditInterceptor } from './audit.interceptor';
import { AuditRecorder } from './audit-recorder';
import { AuditCommitSubscriber } from './audit.subscriber';

/** The recording core, global so that every module's services can record in their own transactions. */
@Global()
@Module({
  providers: [AuditRecorder, AuditCommitSubscriber, AuditInterceptor, AuditScopeGuard],
  exports: [AuditRecorder, AuditInterceptor, AuditScopeGuard],
})
export class AuditCoreModule {}
