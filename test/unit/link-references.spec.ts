import { AppConfig, loadConfig } from '../../src/config/app-config';
import { presentLink, presentReference, ReferenceContext } from '../../src/modules/content/links/link.presenter';
import type { PageWithBody } from '../../src/modules/content/content.read-model';
import { RevisionFile } from '../../src/modules/content/revision-file.entity';
import { RevisionLink } from '../../src/modules/content/revision-link.entity';
import { organizationPermissions } from '../../src/modules/organizations/organization.policy';
import { Organization } from '../../src/modules/organizations/organization.entity';
import { presentOrganization } from '../../src/modules/organizations/organization.presenter';
import { spacePermissions } from '../../src/modules/access/access.policy';
import { Space } from '../../src/modules/space-model/space.entity';
import { presentSpace } from '../../src/modules/space-model/space.presenter';
import { expectPublicSchema } from '../support/contract';

/** Link references (section 2.19) in every case a link can be in, checked against the public ContentLocation shapes. */
describe('link references', () => {
  const config: AppConfig = loadConfig({ PUBLIC_URL: 'http://quire.test', APP_URL: 'http://app.quire.test' });
  const at = new Date('2026-01-01T00:00:00.000Z');
  const organization = Object.assign(new Organization(), {
    id: 'org1',
    title: 'Acme',
    createdAt: at,
    emailDomains: [],
    type: 'business',
    defaultRole: null,
    sso: false,
    ai: false,
    inviteLinks: false,
  });
  const space = Object.assign(new Space(), {
    id: 'space1',
    organizationId: 'org1',
    title: 'Docs',
    emoji: '1f4da',
    visibility: 'private',
    editMode: 'live',
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
    parentId: null,
    revisionId: 'rev1',
    defaultLevel: null,
    changeRequestSeq: 0,
    changeRequestsCount: 0,
    openChangeRequests: 0,
    draftChangeRequests: 0,
    openComments: 0,
  });
  const page = {
    revisionId: 'rev1',
    pageId: 'page1',
    parentId: null,
    position: 0,
    kind: 'document',
    title: 'Guide',
    slug: 'guide',
    path: 'guide',
    emoji: null,
    icon: null,
    description: null,
    documentId: 'doc1',
    layout: null,
    cover: null,
    variables: {},
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    linkTarget: null,
    createdAt: at,
    updatedAt: at,
    markdown: 'See [install](/pages/page2#setup).',
  } as unknown as PageWithBody;
  const file = Object.assign(new RevisionFile(), {
    revisionId: 'rev1',
    fileId: 'file1',
    name: 'logo.png',
    contentType: 'image/png',
    size: 10,
    width: 4,
    height: 2,
  });
  const context: ReferenceContext = {
    config,
    organizationId: 'org1',
    spaceId: 'space1',
    revisionId: 'rev1',
    active: true,
    pages: new Map([[page.pageId, page]]),
    files: new Map([[file.fileId, file]]),
    organization: presentOrganization(organization, organizationPermissions({ membership: { role: 'read' } }), config),
    space: presentSpace(space, spacePermissions('read', space), config),
  };

  it('shows a page as a page location with the Organization and Space objects', () => {
    const json = presentReference(context, { kind: 'page', page: 'page1' });
    expectPublicSchema(json, 'ContentLocation');
    expect(json).toMatchObject({
      kind: 'page',
      organization: { object: 'organization', id: 'org1', title: 'Acme' },
      space: { object: 'space', id: 'space1', revision: 'rev1' },
      page: { id: 'page1', type: 'document', path: 'guide', pages: [], markdown: 'See [install](/pages/page2#setup).' },
    });
    expect(json).not.toHaveProperty('internalLocation');
  });

  it('shows an anchor as a page location with internalLocation', () => {
    const json = presentReference(context, { kind: 'anchor', page: 'page1', anchor: 'setup' });
    expectPublicSchema(json, 'ContentLocation');
    expect(json).toMatchObject({ kind: 'page', page: { id: 'page1' }, internalLocation: { type: 'anchor', anchor: 'setup' } });
  });

  it('shows a file as a file location', () => {
    const json = presentReference(context, { kind: 'file', file: 'file1' });
    expectPublicSchema(json, 'ContentLocation');
    expect(json).toMatchObject({ kind: 'file', organization: { id: 'org1' }, space: { id: 'space1' }, file: { id: 'file1', name: 'logo.png' } });
  });

  it('shows a page or file that does not exist as the URL the page wrote, and URLs as they are', () => {
    expect(presentReference(context, { kind: 'page', page: 'gone' })).toEqual({ kind: 'url', url: '/pages/gone' });
    expect(presentReference(context, { kind: 'file', file: 'gone' })).toEqual({ kind: 'url', url: '/files/gone' });
    expect(presentReference(context, { kind: 'url', url: 'https://example.com/' })).toEqual({ kind: 'url', url: 'https://example.com/' });
    expectPublicSchema(presentReference(context, { kind: 'page', page: 'gone' }), 'ContentLocation');
  });

  it('lists the pages a link is on as page locations', () => {
    const link = Object.assign(new RevisionLink(), { status: 'broken', target: { kind: 'page', page: 'gone' }, pages: ['page1'] });
    const json = presentLink(context, link) as { targetReference: object; locationReferences: object[] };
    expect(json).toMatchObject({ status: 'broken', relation: 'reference', targetReference: { kind: 'url', url: '/pages/gone' } });
    expect(json.locationReferences).toHaveLength(1);
    expectPublicSchema(json.locationReferences[0], 'ContentLocationPage');
  });
});
