import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every operation of the committed OpenAPI document (`openapi/quire.json`, which the OpenAPI test
 * keeps in step with the routes), with what a generated test needs: path and query parameters, and
 * the top-level fields of its JSON body, typed and marked nullable from our DTO schema and from the
 * public description's request body for the same operationId.
 */
type Json = Record<string, any>;

export interface BodyField {
  name: string;
  /** A string (or a list of strings) is accepted: the NUL case sends one. */
  takesString: boolean;
  takesStringArray: boolean;
  /** Our DTO or the public description allows `null`. */
  nullable: boolean;
}

export interface Operation {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Path template, e.g. `/v1/spaces/{spaceId}`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** Undefined when the route takes no body. */
  /** `requiredByPublicDescription` is undefined for operations the public description does not have. */
  body?: { fields: BodyField[]; requiredByPublicDescription: boolean | undefined };
}

const ours = JSON.parse(readFileSync(join(__dirname, '../../openapi/quire.json'), 'utf8')) as Json;
const publicSpec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as Json;

function resolver(root: Json) {
  return (node: Json | undefined): Json | undefined => {
    let at = node;
    for (let hops = 0; at?.$ref && hops < 20; hops++) {
      at = (at.$ref as string)
        .split('/')
        .slice(1)
        .reduce((n: Json, part) => n?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    }
    return at;
  };
}
const deref = { ours: resolver(ours), public: resolver(publicSpec) };

/** The properties of an object schema, through allOf/oneOf/anyOf branches. */
function propertiesOf(
  schema: Json | undefined,
  resolve: (node: Json | undefined) => Json | undefined,
  out: Record<string, Json[]> = {},
): Record<string, Json[]> {
  const node = resolve(schema);
  if (!node) return out;
  for (const [name, property] of Object.entries((node.properties ?? {}) as Json)) (out[name] ??= []).push(resolve(property) ?? {});
  for (const key of ['allOf', 'oneOf', 'anyOf']) for (const branch of (node[key] ?? []) as Json[]) propertiesOf(branch, resolve, out);
  return out;
}

/** The alternatives a schema allows, through oneOf/anyOf and type lists. */
function alternatives(schema: Json, resolve: (node: Json | undefined) => Json | undefined): Json[] {
  const node = resolve(schema) ?? {};
  const branches = [...((node.oneOf ?? []) as Json[]), ...((node.anyOf ?? []) as Json[])];
  if (branches.length > 0) return branches.flatMap((branch) => alternatives(branch, resolve));
  if (Array.isArray(node.type)) return (node.type as string[]).map((type) => ({ ...node, type }));
  return [node];
}

const allowsNull = (schemas: Json[], resolve: (node: Json | undefined) => Json | undefined) =>
  schemas.some((schema) => schema.nullable === true || alternatives(schema, resolve).some((alt) => alt.type === 'null' || alt.nullable === true));

function publicRequestBody(operationId: string): Json | undefined {
  for (const item of Object.values(publicSpec.paths as Json)) {
    for (const operation of Object.values(item as Json)) {
      if ((operation as Json)?.operationId === operationId) return deref.public((operation as Json).requestBody);
    }
  }
  return undefined;
}

export function operations(): Operation[] {
  const list: Operation[] = [];
  for (const [path, item] of Object.entries(ours.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json) as [Operation['method'], Json][]) {
      const parameters = (operation.parameters ?? []) as Json[];
      const entry: Operation = {
        operationId: operation.operationId,
        method,
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
      };
      if (operation.requestBody) {
        const pub = publicRequestBody(entry.operationId);
        const ourProps = propertiesOf(operation.requestBody.content['application/json'].schema, deref.ours);
        const publicProps = propertiesOf(pub?.content?.['application/json']?.schema, deref.public);
        const fields = Object.keys(ourProps).map((name) => {
          const schemas = [...ourProps[name], ...(publicProps[name] ?? [])];
          const alts = ourProps[name].flatMap((schema) => alternatives(schema, deref.ours));
          return {
            name,
            takesString: alts.some((alt) => alt.type === 'string' || (alt.type === undefined && Array.isArray(alt.enum))),
            takesStringArray: alts.some((alt) => alt.type === 'array' && alternatives(alt.items ?? {}, deref.ours).some((i) => i.type === 'string')),
            nullable: allowsNull(ourProps[name], deref.ours) || allowsNull(publicProps[name] ?? [], deref.public) || schemas.length === 0,
          };
        });
        entry.body = { fields, requiredByPublicDescription: pub ? pub.required === true : undefined };
      }
      list.push(entry);
    }
  }
  return list;
}
