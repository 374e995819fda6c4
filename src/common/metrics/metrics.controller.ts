import { Controller, Get, Headers, NotFoundException, Res, UnauthorizedException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { Public } from '../auth/public.decorator';
import { RateLimitExempt } from '../rate-limit/rate-limit-exempt.decorator';
import { MetricsService } from './metrics.service';
import { NotForScripts } from '../access/script-access';
import { NotForSiteTokens } from '../access/site-access';

/**
 * `/metrics` on the public port, only when METRICS_TOKEN is set and no METRICS_PORT moves it to
 * its own listener; then it needs `Authorization: Bearer <METRICS_TOKEN>`. Otherwise it is 404.
 * Not an API operation: left out of the OpenAPI document.
 */
@ApiExcludeController()
@Public()
@RateLimitExempt()
@NotForScripts()
@NotForSiteTokens()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const { token, port } = this.config.metrics;
    if (!token || port !== undefined) throw new NotFoundException('Cannot GET /metrics');
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
    if (!sameSecret(given, token)) throw new UnauthorizedException('The metrics token is missing or wrong');
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).send(body);
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
