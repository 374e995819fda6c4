import { listSchemaOf, publicSchema } from '../../../common/openapi/public-schema';

/**
 * OpenAPI shapes of the links and backlinks lists, which the public description does not have
 * (section 2.19 describes them): each reference is a public `ContentLocation`.
 */
const REFERENCE_SCHEMA = publicSchema('ContentLocation');

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
