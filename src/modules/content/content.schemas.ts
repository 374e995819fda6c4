import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';

/**
 * OpenAPI shapes of content responses. Most are the public description's; import results are not in
 * it, so their shape (section 2.19) is written out here (links and backlinks: links/link.schemas.ts).
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
