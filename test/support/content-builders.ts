import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import type { OrgFixture } from './builders';
import type { TestApp } from './test-app';

/**
 * A revision written with what no public route writes (the public change-request changes have no
 * operation for reusable contents or variables): through the space's unit of work and the revision
 * writer, as imports write.
 */

type Variables = Record<string, string | number | boolean>;

export interface ContentSpec {
  /** Top-level pages, in order. */
  pages: { pageId: string; title?: string; slug?: string; markdown: string; variables?: Variables }[];
  reusableContents?: { id: string; title?: string; markdown: string }[];
  variables?: Variables;
}

/** Makes a new revision holding exactly `content` the space's active one; its id. */
export async function writeContent(t: TestApp, org: OrgFixture, spaceId: string, content: ContentSpec): Promise<string> {
  const writer = t.app.get(RevisionWriter);
  const pages = content.pages.map((page, position) =>
    documentPage({
      pageId: page.pageId,
      title: page.title ?? page.pageId,
      slug: page.slug ?? page.pageId.toLowerCase(),
      parentId: null,
      position,
      markdown: page.markdown,
      variables: page.variables ?? {},
    }),
  );
  const reusableContents = (content.reusableContents ?? []).map((reusable) => ({
    reusableContentId: reusable.id,
    title: reusable.title ?? reusable.id,
    markdown: reusable.markdown,
  }));
  const revision = await t.app
    .get(SpaceUnitOfWork)
    .run(spaceId, org.admin.user, 'edit', (write) =>
      write.commitRevision((base, em) =>
        writer.write(
          { spaceId, parents: [base], type: 'edits', createdBy: org.admin.user.id, pages, files: [], reusableContents, variables: content.variables ?? {} },
          em,
        ),
      ),
    );
  return revision.id;
}
