import { SetMetadata } from '@nestjs/common';

export const RATE_LIMIT_EXEMPT = 'quire:rate-limit-exempt';

/** Keeps a route out of every rate limit (health probes, `/metrics`): an orchestrator must always reach them. */
export const RateLimitExempt = () => SetMetadata(RATE_LIMIT_EXEMPT, true);
