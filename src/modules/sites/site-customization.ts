import type { Site } from './site.entity';

/**
 * The customization a published site is rendered with (section 2.13). Quire stores no
 * customization yet (no routes change it), so every site and site space gets these defaults:
 * the values a new site starts with, each required member of the public
 * `SiteCustomizationSettings` filled.
 */
export function defaultCustomization(site: Site): Record<string, unknown> {
  return {
    title: site.title,
    styling: {
      theme: 'clean',
      primaryColor: { light: '#346DDB', dark: '#346DDB' },
      infoColor: { light: '#787878', dark: '#787878' },
      successColor: { light: '#00C950', dark: '#00C950' },
      warningColor: { light: '#FE9A00', dark: '#FE9A00' },
      dangerColor: { light: '#FB2C36', dark: '#FB2C36' },
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      codeTheme: { default: { light: 'default-light', dark: 'default-dark' }, openapi: { light: 'default-light', dark: 'default-dark' } },
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'system', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'search' },
    advancedCustomization: { enabled: true },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown', 'pdf'] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  };
}
