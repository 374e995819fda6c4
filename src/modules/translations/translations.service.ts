import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { TranslationSettingsDto } from './dto/translation-settings.dto';
import { normalizeLanguages } from './language-tags';
import { TranslationSettings } from './translation-settings.entity';
import { translationSettingsPermissions } from './translation-settings.policy';
import { TranslationsRepository } from './translations.repository';
import { translationError } from './translation.errors';

@Injectable()
export class TranslationsService {
  constructor(private readonly translations: TranslationsRepository) {}

  list(caller: Membership, query: ListQueryDto): Promise<Page<TranslationSettings>> {
    this.mayView(caller);
    return this.translations.list(caller.organizationId, query);
  }

  async get(caller: Membership, id: string): Promise<TranslationSettings> {
    this.mayView(caller);
    return this.found(caller, id);
  }

  async create(caller: Membership, dto: TranslationSettingsDto): Promise<TranslationSettings> {
    this.mayEdit(caller);
    const id = newId();
    await this.translations.insert({ id, organizationId: caller.organizationId, title: dto.title, languages: normalizeLanguages(dto.languages ?? []) });
    return this.found(caller, id);
  }

  async replace(caller: Membership, id: string, dto: TranslationSettingsDto): Promise<TranslationSettings> {
    this.mayEdit(caller);
    await this.found(caller, id);
    await this.translations.update(id, { title: dto.title, ...(dto.languages ? { languages: normalizeLanguages(dto.languages) } : {}) });
    return this.found(caller, id);
  }

  async delete(caller: Membership, id: string): Promise<void> {
    this.mayEdit(caller);
    await this.found(caller, id);
    await this.translations.delete(id);
  }

  private mayView(caller: Membership): void {
    if (!translationSettingsPermissions(caller).view) throw translationError('translation.view_forbidden', 'Guests cannot see translation settings');
  }

  private mayEdit(caller: Membership): void {
    if (!translationSettingsPermissions(caller).edit)
      throw translationError('translation.manage_forbidden', 'Only organization admins can manage translation settings');
  }

  private async found(caller: Membership, id: string): Promise<TranslationSettings> {
    const settings = await this.translations.find(caller.organizationId, id);
    if (!settings) throw translationError('translation.not_found', `Translation settings ${id} not found`);
    return settings;
  }
}
