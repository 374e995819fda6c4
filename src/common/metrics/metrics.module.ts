import { Global, Module } from '@nestjs/common';
import { MetricsListener } from './metrics-listener';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** Global: any module injects MetricsService and registers its metrics on `metrics.registry`. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsListener],
  exports: [MetricsService],
})
export class MetricsModule {}
