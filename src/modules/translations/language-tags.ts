import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * The canonical form of a BCP 47 language tag (`EN-us` → `en-US`), or null when it is not one.
 * Beyond the syntax that `Intl` checks, the primary language must be an ISO 639 code (2 or 3
 * letters): the 5-8 letter form the grammar allows is unused, and would let `english` through.
 */
export function canonicalLanguageTag(tag: unknown): string | null {
  if (typeof tag !== 'string' || tag.length === 0 || tag.length > 35) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    const { language } = new Intl.Locale(canonical);
    return /^[a-z]{2,3}$/.test(language) ? canonical : null;
  } catch {
    return null;
  }
}

/** Canonical tags, each once, in the order first given. Every tag must be valid. */
export function normalizeLanguages(tags: string[]): string[] {
  return [...new Set(tags.map((tag) => canonicalLanguageTag(tag) as string))];
}

export function IsLanguageTag(options?: ValidationOptions) {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isLanguageTag',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => canonicalLanguageTag(value) !== null,
        defaultMessage: () => 'must contain only BCP 47 language tags such as en, fr or pt-BR',
      },
    });
}
