import { Injectable } from '@nestjs/common';

/**
 * The time the spaces module stamps deletions with and measures the retention period against.
 * Tests drive it (a spy on `now`) instead of sleeping through seven days.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
