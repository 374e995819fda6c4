import { Injectable } from '@nestjs/common';
import { ContentRepository } from './content.repository';
import { type EvaluationContext, type JsonDocument, MAX_INCLUDE_DEPTH, reusableContentRefs } from './document';
import type { DocumentQueryDto } from './dto/content-query.dto';
import { pageDocument } from './markdown/page-document';
import type { Revision } from './revision.entity';
import { prepareDocuments } from './text-work/text-workers';

const EMPTY_DOCUMENT: JsonDocument = { object: 'document', data: {}, nodes: [] };

/**
 * What a read needs to evaluate documents (`evaluateDocument`, applied by the presenters): the
 * revision's variables, the visitor's claims, and, when dereferenced, the reusable contents the
 * documents include, loaded here level by level (as deep as evaluation expands them) so that
 * evaluation itself stays pure.
 */
@Injectable()
export class DocumentEvaluation {
  constructor(private readonly content: ContentRepository) {}

  /** Undefined when the read asks for no evaluation (the document is answered as stored). */
  async contextFor(
    revision: Revision,
    query: Pick<DocumentQueryDto, 'evaluated' | 'dereferenced'>,
    roots: JsonDocument[],
    claims?: Record<string, unknown>,
  ): Promise<EvaluationContext | undefined> {
    if (!query.evaluated && !query.dereferenced) return undefined;
    const contents = query.dereferenced ? await this.reusableDocuments(revision, roots) : new Map<string, JsonDocument>();
    return {
      evaluated: query.evaluated,
      dereferenced: query.dereferenced,
      spaceVariables: revision.variables ?? {},
      claims,
      spaceId: revision.spaceId,
      reusableContent: (id) => contents.get(id),
    };
  }

  /** The documents of the reusable contents `roots` include, and those they include, `MAX_INCLUDE_DEPTH` levels down. */
  private async reusableDocuments(revision: Revision, roots: JsonDocument[]): Promise<Map<string, JsonDocument>> {
    const documents = new Map<string, JsonDocument>();
    const asked = new Set<string>();
    let wanted = reusableContentRefs(roots, revision.spaceId);
    for (let depth = 0; depth < MAX_INCLUDE_DEPTH && wanted.size > 0; depth++) {
      for (const id of wanted) asked.add(id);
      const rows = await this.content.reusableContentBodies(revision.id, [...wanted]);
      await prepareDocuments(rows.map((row) => row.markdown));
      const level: JsonDocument[] = [];
      for (const row of rows) {
        const document = row.markdown ? (pageDocument(row.markdown) as unknown as JsonDocument) : EMPTY_DOCUMENT;
        documents.set(row.reusableContentId, document);
        level.push(document);
      }
      wanted = new Set([...reusableContentRefs(level, revision.spaceId)].filter((id) => !asked.has(id)));
    }
    return documents;
  }
}
