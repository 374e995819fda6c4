import { canonicalLanguageTag, normalizeLanguages } from '../../src/modules/translations/language-tags';
import { translationSettingsPermissions } from '../../src/modules/translations/translation-settings.policy';

describe('canonicalLanguageTag', () => {
  it.each([
    ['en', 'en'],
    ['fr', 'fr'],
    ['pt-br', 'pt-BR'],
    ['ZH-hant-TW', 'zh-Hant-TW'],
    ['yue', 'yue'],
    ['es-419', 'es-419'],
  ])('accepts %s as %s', (tag, canonical) => {
    expect(canonicalLanguageTag(tag)).toBe(canonical);
  });

  it.each([[''], ['e'], ['english'], ['en_US'], [' en'], ['en-'], ['x-private'], ['abcd'], ['en-US-u'], ['a'.repeat(36)], [42], [null]])(
    'refuses %p',
    (tag) => {
      expect(canonicalLanguageTag(tag)).toBeNull();
    },
  );
});

describe('normalizeLanguages', () => {
  it('canonicalises and drops duplicates, keeping the first order', () => {
    expect(normalizeLanguages(['fr', 'EN', 'pt-br', 'en', 'pt-BR'])).toEqual(['fr', 'en', 'pt-BR']);
  });
});

describe('translation settings policy', () => {
  it('lets members view and admins edit; guests neither', () => {
    expect(translationSettingsPermissions({ role: 'admin' })).toEqual({ view: true, edit: true });
    expect(translationSettingsPermissions({ role: 'read' })).toEqual({ view: true, edit: false });
    expect(translationSettingsPermissions({ role: null })).toEqual({ view: false, edit: false });
  });
});
