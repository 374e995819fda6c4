import { SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/**
 * A declaration about who may call a route, kept twice: as metadata under `key` (read by the guard
 * that enforces it) and as the OpenAPI extension `extension` of the operation (read by reviewers in
 * the committed document and by the generated tests). On a method it declares that route; on a
 * controller it declares every route of it that declares nothing itself (method decorators run first).
 */
export function declareOnRoutes<T>(key: string, extension: string, declaration: T): MethodDecorator & ClassDecorator {
  return ((target: object, name?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      SetMetadata(key, declaration)(target, name!, descriptor);
      ApiExtension(extension, declaration)(target, name!, descriptor);
      return descriptor;
    }
    const prototype = (target as { prototype: object }).prototype;
    for (const handlerName of Object.getOwnPropertyNames(prototype)) {
      const handler = Object.getOwnPropertyDescriptor(prototype, handlerName);
      if (handlerName === 'constructor' || typeof handler?.value !== 'function' || Reflect.getMetadata('method', handler.value) === undefined) continue;
      if (Reflect.getMetadata(key, handler.value)) continue;
      SetMetadata(key, declaration)(prototype, handlerName, handler);
      ApiExtension(extension, declaration)(prototype, handlerName, handler);
    }
    return undefined;
  }) as MethodDecorator & ClassDecorator;
}
