import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { FixedWindowStorage } from './fixed-window.storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RATE_LIMIT_STORE } from './rate-limit.store';
import { RateLimiter } from './rate-limiter';
import { RedisWindowStorage } from './redis-window.storage';

/**
 * Must be imported before AuthModule: global guards run in the order their modules register, and
 * the limits (above all the failed-authentication budget) are checked before the token is.
 * Global, so that the authenticators reach `RateLimiter` (per-installation budget, lockout refusal).
 * The counters live on Redis when REDIS_URL is set (shared by every replica), else in memory.
 */
@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORE,
      inject: [AppConfig, MetricsService],
      useFactory: (config: AppConfig, metrics: MetricsService) => (config.redis ? new RedisWindowStorage(config.redis, metrics) : new FixedWindowStorage()),
    },
    RateLimiter,
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  exports: [RateLimiter, RATE_LIMIT_STORE],
})
export class RateLimitModule {}
