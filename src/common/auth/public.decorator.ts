import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'quire:public';

/** Opens a route to callers without a token (health checks). Everything else requires one. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
