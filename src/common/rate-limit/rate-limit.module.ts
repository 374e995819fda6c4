import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { FixedWindowStorage } from './fixed-window.storage';
import { RateLimitGuard } from './rate-limit.guard';

/**
 * Must be imported before AuthModule: global guards run in the order their modules register, and
 * the limits (above all the failed-authentication budget) are checked before the token is.
 */
@Module({
  providers: [FixedWindowStorage, { provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}
