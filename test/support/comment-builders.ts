import { ChangeRequest } from '../../src/modules/change-requests/change-request.entity';
import { ContentRepository } from '../../src/modules/content/content.repository';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { newId } from '../../src/common/ids';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import type { OrgFixture } from './builders';
import type { TestApp } from './test-app';

/** Builders for the comments tests: pages written through the revision writer, change requests through the unit of work. */

export interface PageSpec {
  pageId: string;
  title: string;
  slug: string;
  markdown: string;
}

/** Makes a new revision holding exactly `pages` (top level, in order) the space's active one. */
export async function writePages(t: TestApp, org: OrgFixture, spaceId: string, pages: PageSpec[]): Promise<string> {
  const writer = t.app.get(RevisionWriter);
  const revision = await t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', (write) =>
    write.commitRevision((base, em) =>
      writer.write(
        {
          spaceId,
          parents: [base],
          type: 'edits',
          createdBy: org.admin.user.id,
          pages: pages.map((page, position) => documentPage({ ...page, parentId: null, position })),
          files: [],
        },
        em,
      ),
    ),
  );
  return revision.id;
}

/** A new active revision in which page `pageId` has a new body (every other page carried over). */
export async function editPage(t: TestApp, org: OrgFixture, spaceId: string, pageId: string, markdown: string): Promise<string> {
  const writer = t.app.get(RevisionWriter);
  const content = t.app.get(ContentRepository);
  const revision = await t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', (write) =>
    write.commitRevision(async (base, em) => {
      const tree = await content.tree(base, em);
      const pages = tree.map(({ revisionId: _r, path: _p, ...row }) => (row.pageId === pageId ? { ...row, markdown, updatedAt: new Date() } : row));
      return writer.write({ spaceId, parents: [base], type: 'edits', createdBy: org.admin.user.id, pages, files: [] }, em);
    }),
  );
  return revision.id;
}

/**
 * An open change request of the space, numbered under the space's lock and counted in its counters,
 * as the change-requests module will create them; its head holds `pages` when given (a revision of
 * the space that is not active), else the space's active revision.
 */
export async function createChangeRequest(t: TestApp, org: OrgFixture, spaceId: string, pages?: PageSpec[]): Promise<ChangeRequest> {
  const writer = t.app.get(RevisionWriter);
  return t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', async (write) => {
    const head = pages
      ? (
          await writer.write(
            {
              spaceId,
              parents: [write.space.revisionId],
              type: 'edits',
              createdBy: org.admin.user.id,
              pages: pages.map((page, position) => documentPage({ ...page, parentId: null, position })),
              files: [],
            },
            write.em,
          )
        ).id
      : write.space.revisionId;
    const changeRequest = write.em.create(ChangeRequest, {
      id: newId(),
      spaceId,
      number: await write.nextChangeRequestNumber(),
      status: 'open',
      subject: 'Proposed edits',
      agentTaskId: null,
      createdBy: org.admin.user.id,
      revisionInitial: write.space.revisionId,
      revision: head,
      revisionMergedAncestor: null,
      revisionMerged: null,
      openComments: 0,
      mergedAt: null,
    });
    await write.em.insert(ChangeRequest, changeRequest);
    await write.count({ changeRequestsCount: 1, openChangeRequests: 1 });
    return changeRequest;
  });
}
