import { CanActivate, ExecutionContext, Inject, Injectable, Optional, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AUTHENTICATOR, type Authenticator } from './authenticator';
import { routeMetadata } from '../metadata/route-metadata';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { IS_PUBLIC } from './public.decorator';

/** The RFC 6750 challenge sent with every 401. */
export const BEARER_CHALLENGE = 'Bearer realm="quire"';

/** Global guard: every route needs `Authorization: Bearer <token>` of a known token, unless @Public(). */
@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly isPublic: (context: ExecutionContext) => boolean | undefined;

  constructor(
    reflector: Reflector,
    @Inject(AUTHENTICATOR) private readonly tokens: Authenticator,
    @Optional() private readonly limits?: RateLimiter,
  ) {
    this.isPublic = routeMetadata<boolean>(reflector, IS_PUBLIC);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic(context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!secret) {
      this.limits?.refuseIfLockedOut(request, response);
      // RFC 6750: a challenge on every 401; without a token, no error code.
      response.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
      throw new UnauthorizedException('Authentication is required: send an Authorization: Bearer <token> header');
    }
    const user = await this.tokens.authenticate(secret, request);
    if (!user) {
      // An address locked out for failed authentications is refused here, once the token is known to fail.
      this.limits?.refuseIfLockedOut(request, response);
      response.setHeader('WWW-Authenticate', `${BEARER_CHALLENGE}, error="invalid_token", error_description="The access token is invalid or has been revoked"`);
      throw new UnauthorizedException('The access token is invalid or has been revoked');
    }
    request.user = user;
    return true;
  }
}
