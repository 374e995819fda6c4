import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The authenticated caller, set by the BearerTokenGuard. */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): NonNullable<Request['user']> => {
  return context.switchToHttp().getRequest<Request>().user as NonNullable<Request['user']>;
});
