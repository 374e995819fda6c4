import { listSchemaOf, publicListSchema, publicSchema } from '../../common/openapi/public-schema';

/**
 * OpenAPI shapes of content responses. Most are the public description's; import results, links
 * and backlinks are not in it, so their shapes (section 2.19) are written out here.
 */
export const PAGES_SCHEMA = { type: 'object', properties: { pages: { type: 'array', items: publicSchema('RevisionPage') } }, required: ['pages'] };
export const PAGE_BY_PATH_SCHEMA = { oneOf: [publicSchema('RevisionPageDocument'), publicSchema('RevisionPageGroup')] };
export const FILES_SCHEMA = publicListSchema('RevisionFile');

export const IMPORT_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    revision: { type: 'string', description: 'The new active revision, holding the imported pages' },
    importedResources: { type: 'number', description: 'Pages and images imported' },
    totalResources: { type: 'number', description: 'Pages and images found on the site, imported or not' },
  },
  required: ['revision', 'importedResources', 'totalResources'],
};

const REFERENCE_SCHEMA = {
  type: 'object',
  description: 'Content a link points at, or a page a link is on',
  properties: {
    kind: { type: 'string', enum: ['page', 'file', 'anchor', 'url'] },
    organization: { type: 'string', description: 'Organization ID' },
    space: { type: 'string', description: 'Space ID' },
    versionContext: {
      type: 'object',
      properties: { type: { type: 'string', enum: ['revision'] }, revision: { type: 'string' } },
      required: ['type', 'revision'],
    },
    page: {
      type: 'object',
      description: 'The page (only `id` when it does not exist)',
      properties: { id: { type: 'string' }, title: { type: 'string' }, path: { type: 'string' } },
      required: ['id'],
    },
    file: {
      description: 'The file (only `id` when it does not exist)',
      oneOf: [publicSchema('RevisionFile'), { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }],
    },
    anchor: { type: 'string' },
    url: { type: 'string' },
  },
  required: ['kind'],
};

const LINK_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'broken', 'in-app'] },
    relation: { type: 'string', enum: ['reference'] },
    targetReference: REFERENCE_SCHEMA,
    locationReferences: { type: 'array', items: REFERENCE_SCHEMA },
  },
  required: ['status', 'relation', 'targetReference', 'locationReferences'],
};

export const LINKS_SCHEMA = {
  allOf: [
    publicSchema('List'),
    {
      type: 'object',
      properties: {
        items: { type: 'array', items: LINK_SCHEMA },
        stats: {
          type: 'object',
          properties: {
            total: { type: 'number' },
            broken: { type: 'object', properties: { total: { type: 'number' }, changeRequest: { type: 'number' } }, required: ['total', 'changeRequest'] },
          },
          required: ['total', 'broken'],
        },
      },
      required: ['items', 'stats'],
    },
  ],
};

export const BACKLINKS_SCHEMA = listSchemaOf(REFERENCE_SCHEMA);
