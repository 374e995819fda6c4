import { Injectable } from '@nestjs/common';
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
  ) {}

  async search(access: SpaceAccess, dto: SearchQueryDto): Promise<SearchResults> {
    const spaceId = access.space.id;
    const { context } = await this.content.open(access);
    const page = await this.index.search(spaceId, dto.query, dto);
    // Ranks are positions in the whole ranked list, so a later page starts after what came before.
    const first = dto.page && page.items.length > 0 ? (await this.index.countBefore(spaceId, dto.query, page.items[0])) + 1 : 1;
    const documentIds = page.items.map((hit) => hit.documentId).filter((id): id is string => id !== null);
    const sections = new Map<string, SectionHit[]>();
    for (const section of await this.index.sections(documentIds, dto.query)) {
      sections.set(section.documentId, [...(sections.get(section.documentId) ?? []), section]);
    }
    return { context, page, first, sections };
  }
}
