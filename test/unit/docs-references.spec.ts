import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The docs are a map of what is: every file, class, route, operation and error code a page names in
 * backticks must exist. Names are recognised by their shape; anything else in backticks (variables,
 * SQL, JSON, values) is left alone.
 */
const root = join(__dirname, '..', '..');

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'data' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

const docs = filesUnder(join(root, 'docs'), (path) => path.endsWith('.md'));
const sources = [...filesUnder(join(root, 'src'), (path) => path.endsWith('.ts')), ...filesUnder(join(root, 'test'), (path) => path.endsWith('.ts'))]
  .concat(filesUnder(join(root, 'bench'), (path) => path.endsWith('.ts')))
  .concat(filesUnder(join(root, 'migrations'), (path) => path.endsWith('.ts')))
  .concat(filesUnder(join(root, 'scripts'), (path) => /\.(ts|js)$/.test(path)));
// This file names missing things on purpose: it is not a source the names could be found in.
const sourceText = sources
  .filter((path) => path !== __filename)
  .map((path) => readFileSync(path, 'utf8'))
  .join('\n');

const quire = JSON.parse(readFileSync(join(root, 'openapi', 'quire.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
const publicSpec = require('@gitbook/api/spec/openapi.json') as typeof quire;

const operationIds = new Set<string>();
for (const spec of [quire, publicSpec])
  for (const item of Object.values(spec.paths))
    for (const operation of Object.values(item)) if (operation?.operationId) operationIds.add(operation.operationId);
const publicSchemas = new Set(Object.keys((publicSpec as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas));
const routePatterns = Object.entries(quire.paths).flatMap(([path, item]) =>
  Object.keys(item).map((method) => ({ method: method.toUpperCase(), pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) })),
);

/** Every file and folder of the repository, as paths from its root, for names given from any folder down. */
const tracked = ['src', 'test', 'bench', 'migrations', 'scripts', 'docs', 'openapi', '.ci', 'deploy'].flatMap((top) =>
  existsSync(join(root, top)) ? filesUnder(join(root, top), () => true).map((path) => relative(root, path)) : [],
);
const trackedPaths = new Set(tracked.flatMap((path) => path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
/** Names of things outside the repository that docs may name in backticks. */
const EXTERNAL = new Set([
  'ValidationPipe',
  'ThrottlerStorageService',
  'AsyncLocalStorage',
  'mergeAll',
  'space.vars',
  'page.vars',
  'visitor.claims',
  'dist/',
  'data/',
  'node_modules/',
]);
const FILE = /^[\w.@-]+(?:\/[\w.@-]+)*(?:\.(?:ts|md|json|mjs|js|yml|yaml)|\/)$/;
const CLASS =
  /^[A-Z][A-Za-z0-9]+(?:Service|Repository|Controller|Guard|Module|Presenter|Pipe|Interceptor|Filter|Job|Listener|Writer|Storage|Authenticator|UnitOfWork)$/;
const ROUTE = /^(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^\s?]*)/;
const OPERATION =
  /^(?:get|list|create|update|delete|search|import|export|resolve|render|install|uninstall|publish|unpublish|move|restore|transfer|merge|submit|request|remove|add|invite|join|track|aggregate|regenerate|prewarm|duplicate|bulk)[A-Z][A-Za-z]+$/;
const ERROR_CODE = /^[a-z][a-z-]*\.[a-z][a-z_]+$/;

const errorCodes = new Set([...sourceText.matchAll(/'([a-z][a-z-]*\.[a-z][a-z_]+)'/g)].map((match) => match[1]));

/** A path from the repository's root, or the tail of one (`merge/line-merge.ts` in a module's page). */
function fileExists(name: string, doc: string): boolean {
  const clean = name.replace(/^\.\//, '').replace(/\/$/, '');
  // Paths of other layouts a page describes: a Git Sync repository, GitBook's renderer, an example page.
  if (['.gitbook/', 'packages/', 'path/'].some((prefix) => name.startsWith(prefix))) return true;
  if (name.startsWith('./') || name.startsWith('../') || name.startsWith('@') || EXTERNAL.has(name) || /[A-Z]{2,}_[A-Z]/.test(name)) return true;
  if (existsSync(join(doc, '..', clean)) || trackedPaths.has(clean)) return true;
  return [...trackedPaths].some((path) => path.endsWith(`/${clean}`));
}

function problems(doc: string, text = readFileSync(doc, 'utf8')): string[] {
  text = text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
  const found: string[] = [];
  for (const [, name] of text.matchAll(/`([^`\n]+)`/g)) {
    const token = name.trim();
    const route = ROUTE.exec(token);
    if (route) {
      const path = route[2].replace(/\{[^}]+\}/g, 'x').replace(/\/$/, '');
      const known = routePatterns.some((r) => r.method === route[1] && r.pattern.test(path)) || path.includes('…');
      if (!known) found.push(`route ${token}`);
    } else if (FILE.test(token) && token.includes('/')) {
      if (!fileExists(token, doc)) found.push(`file ${token}`);
    } else if (CLASS.test(token)) {
      if (!EXTERNAL.has(token) && !publicSchemas.has(token) && !new RegExp(`\\b(class|interface|const|function) ${token}\\b`).test(sourceText))
        found.push(`class ${token}`);
    } else if (OPERATION.test(token)) {
      if (!EXTERNAL.has(token) && !operationIds.has(token) && !new RegExp(`\\b${token}\\b`).test(sourceText)) found.push(`operation ${token}`);
    } else if (
      ERROR_CODE.test(token) &&
      /^(space|collection|content|change_request|change-request|comment|site|team|member|organization|saml|translation|integration|openapi|insights|invite|user|token|published|access)\./.test(
        token,
      )
    ) {
      if (!EXTERNAL.has(token) && !errorCodes.has(token)) found.push(`error code ${token}`);
    }
  }
  return found;
}

describe('docs name only what exists', () => {
  it('finds the docs', () => {
    expect(docs.length).toBeGreaterThan(5);
  });

  it.each(docs.map((doc) => [relative(root, doc)]))('%s', (doc) => {
    expect(problems(join(root, doc))).toEqual([]);
  });

  it('notices a name of each kind that does not exist', () => {
    const probe = join(root, 'docs', 'architecture.md');
    const names = ['GET /v1/nothing-here', 'NoSuchThingService', 'listTeamsInOrganization', 'src/modules/no-such-module/', 'team.no_such_code'];
    expect(problems(probe, names.map((name) => `\`${name}\``).join(' '))).toEqual([
      'route GET /v1/nothing-here',
      'class NoSuchThingService',
      'operation listTeamsInOrganization',
      'file src/modules/no-such-module/',
      'error code team.no_such_code',
    ]);
    expect(problems(probe, '`GET /v1/user` `SpaceUnitOfWork` `getSpaceById` `src/modules/content/` `team.not_found`')).toEqual([]);
  });
});
