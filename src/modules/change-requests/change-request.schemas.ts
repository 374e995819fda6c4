import { publicSchema } from '../../common/openapi/public-schema';

/** OpenAPI shapes of change-request answers that are not a single public schema. */
export const MERGE_RESULT_SCHEMA = {
  type: 'object',
  properties: { revision: { type: 'string', description: 'ID of the resulting revision' }, result: { type: 'string', enum: ['merge'] } },
  required: ['revision', 'result'],
};
export const UPDATE_RESULT_SCHEMA = {
  type: 'object',
  properties: { revision: { type: 'string', description: 'ID of the change request revision holding main' }, result: { type: 'string', enum: ['update'] } },
  required: ['revision', 'result'],
};
export const PDF_URL_SCHEMA = {
  type: 'object',
  properties: { url: { type: 'string', format: 'uri', description: 'URL of the PDF on this server; fetch it with the same bearer token' } },
  required: ['url'],
};
/** The body of a 202 from the PDF url while the render job runs. */
export const PDF_PENDING_SCHEMA = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['pending'] } },
  required: ['status'],
};
export const CONTENT_UPDATE_SCHEMA = { oneOf: [publicSchema('ChangeRequest'), publicSchema('ChangeRequestContentUpdate')] };
