/** OpenAPI documents for the specs tests and bench: small, valid, one per format and version. */

export function petstore(extraPath = false): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    '/pets': {
      get: {
        tags: ['pets'],
        summary: 'List all pets',
        operationId: 'listPets',
        parameters: [{ name: 'limit', in: 'query', required: false, description: 'How many items to return', schema: { type: 'integer', format: 'int32' } }],
        responses: {
          '200': { description: 'A paged array of pets', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pets' } } } },
          default: { $ref: '#/components/responses/Error' },
        },
      },
      post: {
        tags: ['pets'],
        summary: 'Create a pet',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
        responses: { '201': { description: 'Null response' } },
      },
    },
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, description: 'The id of the pet', schema: { type: 'string' } }],
      get: {
        tags: ['pets'],
        summary: 'Info for a specific pet',
        responses: { '200': { description: 'Expected response', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
      },
    },
    '/health': { get: { summary: 'Health check', responses: { '204': { description: 'Alive' } } } },
  };
  if (extraPath) {
    paths['/stores'] = { get: { tags: ['stores'], summary: 'List all stores', responses: { '200': { description: 'The stores' } } } };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Swagger Petstore', version: '1.0.0', description: 'A sample API' },
    servers: [{ url: 'https://petstore.example.com/v1' }],
    tags: [{ name: 'pets', description: 'Everything about your pets' }],
    paths,
    components: {
      schemas: {
        Pet: {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, tag: { type: 'string' } },
        },
        Pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
        Error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
      },
      responses: { Error: { description: 'unexpected error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
    },
  };
}

export const PETSTORE_31_YAML = `openapi: 3.1.0
info:
  title: Pets 3.1
  version: "2.0"
paths:
  /pets:
    get:
      tags: [pets]
      summary: List pets
      responses:
        "200":
          description: The pets
          content:
            application/json:
              schema:
                type: array
                items:
                  $ref: "#/components/schemas/Pet"
components:
  schemas:
    Pet:
      type: object
      properties:
        name:
          type: string
`;

export const SWAGGER_2_YAML = `swagger: "2.0"
info:
  title: Old pets
  version: "1"
paths:
  /pets:
    post:
      tags: [pets]
      summary: Add a pet
      consumes: [application/json]
      parameters:
        - in: body
          name: body
          required: true
          schema:
            $ref: "#/definitions/Pet"
      responses:
        "200":
          description: ok
definitions:
  Pet:
    type: object
    properties:
      name:
        type: string
`;

/** A spec split over files: the entry refers to a schema file next to it, which refers to another. */
export const SPLIT_ENTRY = `openapi: 3.0.3
info:
  title: Split
  version: "1"
paths:
  /pets:
    get:
      tags: [pets]
      summary: List pets
      responses:
        "200":
          description: The pets
          content:
            application/json:
              schema:
                $ref: "./schemas/pet.yaml#/Pet"
`;
export const SPLIT_PET = `Pet:
  type: object
  properties:
    name:
      type: string
    owner:
      $ref: "owner.json"
`;
export const SPLIT_OWNER = JSON.stringify({ type: 'object', properties: { email: { type: 'string', format: 'email' } } });

/** A valid document of about `bytes` bytes of JSON: the petstore with many generated operations. */
export function largeSpec(bytes: number): string {
  const spec = petstore() as { paths: Record<string, unknown> };
  const one = JSON.stringify(operationPath(0)).length + 40;
  const count = Math.max(1, Math.floor(bytes / one));
  for (let i = 0; i < count; i++) spec.paths[`/generated/${i}/{id}`] = operationPath(i);
  return JSON.stringify(spec);
}

/**
 * `largeSpec` with problems spread through it: one operation in 100 has a number for a response's
 * description, one in 200 a response `$ref` that lands nowhere. It still parses: it is kept, with them.
 */
export function largeSpecWithProblems(bytes: number): string {
  const spec = JSON.parse(largeSpec(bytes)) as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
  Object.values(spec.paths).forEach((item, i) => {
    if (!item.get) return;
    if (i % 100 === 0) item.get.responses = { '200': { description: 42 } };
    if (i % 200 === 0) item.get.responses['201'] = { $ref: `#/components/responses/Missing${i}` };
  });
  return JSON.stringify(spec);
}

function operationPath(i: number) {
  return {
    get: {
      tags: [`group-${i % 50}`],
      summary: `Read generated resource number ${i}`,
      operationId: `getGenerated${i}`,
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The identifier of the resource to read' },
        { name: 'expand', in: 'query', required: false, schema: { type: 'boolean' }, description: 'Whether to expand related resources' },
      ],
      responses: {
        '200': { description: 'The resource', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
        '404': { description: 'No such resource' },
      },
    },
  };
}
