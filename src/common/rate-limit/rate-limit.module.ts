import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { FixedWindowStorage } from './fixed-window.storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';

/**
 * Must be imported before AuthModule: global guards run in the order their modules register, and
 * the limits (above all the failed-authentication budget) are checked before the token is.
 * Global, so that the authenticators reach `RateLimiter` (per-installation budget, lockout refusal).
 */
@Global()
@Module({
  providers: [FixedWindowStorage, RateLimiter, { provide: APP_GUARD, useClass: RateLimitGuard }],
  exports: [RateLimiter],
})
export class RateLimitModule {}
