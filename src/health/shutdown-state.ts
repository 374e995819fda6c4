import { Injectable } from '@nestjs/common';

/**
 * Whether this process is shutting down: set by `main.ts` on SIGTERM, read by `/health/ready`, which
 * answers 503 from then on, while the listener still accepts for SHUTDOWN_DRAIN_DELAY_MS, so a load
 * balancer or Kubernetes takes the replica out before its connections are refused.
 */
@Injectable()
export class ShutdownState {
  private draining = false;

  begin(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }
}
