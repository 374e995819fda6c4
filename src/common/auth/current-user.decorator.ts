import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { User } from '../../modules/users/user.entity';

/** The authenticated caller, set by the BearerTokenGuard. */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): User => {
  return context.switchToHttp().getRequest<Request>().user as User;
});
