import { ArgumentMetadata, BadRequestException, PipeTransform } from '@nestjs/common';

/**
 * Path parameters the public description types as `EntityId` (`^[a-zA-Z0-9_-]+$`). A value that
 * cannot be an id is refused with a 400 naming the parameter, so no route answers a success (a 204
 * "did not exist") or reaches SQL for it. The length cap matches ids in bodies (IsEntityId). Other
 * path parameters (`siteId`, `installationId`, `integrationName`…) are free strings there and are
 * looked up as they are (404 when unknown).
 */
export const ENTITY_ID_PARAMS = new Set([
  'organizationId',
  'spaceId',
  'collectionId',
  'teamId',
  'inviteId',
  'fileId',
  'pageId',
  'revisionId',
  'changeRequestId',
  'commentId',
  'commentReplyId',
]);

const ENTITY_ID = /^[\w-]{1,64}$/;

export class EntityIdParamPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param' && metadata.data && ENTITY_ID_PARAMS.has(metadata.data) && typeof value === 'string' && !ENTITY_ID.test(value)) {
      throw new BadRequestException(`${metadata.data}: must be an id (1 to 64 letters, digits, _ or -)`);
    }
    return value;
  }
}
