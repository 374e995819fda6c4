import { AppConfig } from '../../config/app-config';
import { TranslationSettings } from './translation-settings.entity';
import { TranslationSettingsPermissions } from './translation-settings.policy';

/** `Translation settings` as the API shows it (section 2.18). */
export interface TranslationSettingsJson {
  object: 'translation-settings';
  id: string;
  title: string;
  languages: string[];
  createdAt: string;
  updatedAt: string;
  permissions: TranslationSettingsPermissions;
  urls: { location: string };
}

export function presentTranslationSettings(
  settings: TranslationSettings,
  permissions: TranslationSettingsPermissions,
  config: AppConfig,
): TranslationSettingsJson {
  return {
    object: 'translation-settings',
    id: settings.id,
    title: settings.title,
    languages: settings.languages,
    createdAt: settings.createdAt.toISOString(),
    updatedAt: settings.updatedAt.toISOString(),
    permissions,
    urls: { location: config.apiUrl(`/v1/orgs/${settings.organizationId}/translations/${settings.id}`) },
  };
}
