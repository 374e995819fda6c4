import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { SpaceAccess } from '../../access/space-access.service';
import { ContentService } from '../content.service';
import { SearchQueryDto } from '../dto/search-query.dto';
import { SearchIndexRepository } from './search-index.repository';
import type { SearchResults, SectionHit } from './search.read-model';

/** Full-text search over a space's active revision. */
@Injectable()
export class SearchService {
  constructor(
    private readonly content: ContentService,
    private readonly index: SearchIndexRepository,
    private readonly config: AppConfig,
  ) {}

  async search(access: SpaceAccess, dto: SearchQueryDto): Promise<SearchResults> {
    const { context } = await this.content.open(access);
    const { first, ...page } = await this.index.search(access.space.id, dto.query, dto, this.config.search.candidates);
    // Sections are found for the returned pages only.
    const documentIds = page.items.map((hit) => hit.documentId).filter((id): id is string => id !== null);
    const sections = new Map<string, SectionHit[]>();
    for (const section of await this.index.sections(documentIds, dto.query)) {
      sections.set(section.documentId, [...(sections.get(section.documentId) ?? []), section]);
    }
    return { context, page, first, sections };
  }
}
