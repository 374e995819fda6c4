import type { ExecutionContext, Type } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/**
 * `reflector.getAllAndOverride(key, [handler, class])`, read once per route: a guard that runs on
 * every request asks the same question of the same handler each time, and the answer, fixed when
 * the decorators ran, cost two metadata lookups per request (docs/scaling.md, "The hot path").
 */
export function routeMetadata<T>(reflector: Reflector, key: string): (context: ExecutionContext) => T | undefined {
  const byHandler = new WeakMap<object, { type: Type<unknown>; value: T | undefined }>();
  return (context) => {
    const handler = context.getHandler();
    const type = context.getClass();
    const cached = byHandler.get(handler);
    // A handler is a method of one class, unless a subclass inherits it: then the class decides.
    if (cached && cached.type === type) return cached.value;
    const value = reflector.getAllAndOverride<T | undefined>(key, [handler, type]);
    byHandler.set(handler, { type, value });
    return value;
  };
}
