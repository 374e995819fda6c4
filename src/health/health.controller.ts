import { Controller, Get, Optional, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { NotForScripts } from '../common/access/script-access';
import { NotForSiteTokens } from '../common/access/site-access';
import { Public } from '../common/auth/public.decorator';
import { RateLimitExempt } from '../common/rate-limit/rate-limit-exempt.decorator';
import { ShutdownState } from './shutdown-state';
import { ReadReplicas } from '../database/read-replicas';

/** Kubernetes probes: liveness never touches the database; readiness pings it, and is 503 once a shutdown began. */
@ApiTags('health')
@Public()
@RateLimitExempt()
@NotForScripts()
@NotForSiteTokens()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownState,
    @Optional() private readonly replicas?: ReadReplicas,
  ) {}

  @Get('live')
  @HealthCheck()
  @ApiOperation({ operationId: 'getLiveness', summary: 'The process is up' })
  @ApiOkResponse({ description: 'The process answers' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ operationId: 'getReadiness', summary: 'The process can serve requests (database reachable)' })
  @ApiOkResponse({ description: 'Ready' })
  @ApiServiceUnavailableResponse({ description: 'The database is unreachable, or the process is shutting down' })
  async ready(): Promise<HealthCheckResult> {
    if (this.shutdown.isDraining) throw new ServiceUnavailableException('The server is shutting down');
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 1500 }),
        // A replica down does not make the process unready (its reads go to the primary): a detail, always up.
        ...(this.replicas ? [() => ({ readReplicas: { status: 'up' as const, replicas: this.replicas?.status() } })] : []),
      ]);
    } catch {
      throw new ServiceUnavailableException('The database is unreachable');
    }
  }
}
