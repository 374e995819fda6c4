import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

/*
 * Layers (docs/architecture.md, "Layers"): an import may only run down. Bottom to top:
 *   config/ → common/ → database/ → health/ → modules/ → src/*.ts (the application: app.module, main, cli)
 * and inside a module: entity / read-model / errors / policy / dto → repository → service (and guards) →
 * presenter → controller → *.module.ts. A presenter is imported by controllers (and other presenters) only.
 * Between the space modules: space-model/ → access/ → space-writes/ → collections/, content/ → spaces/;
 * content/ → change-requests/ → comments/.
 */
const role = (message, ...roles) => ({
  regex: `\\.(${roles.join('|')})(\\.ts)?$`,
  message: `${message} (it imports no ${roles.map((r) => `*.${r}.ts`).join(', ')})`,
});
const platform = (what, ...folders) => ({
  regex: `(^|/)(${folders.join('|')})/|(^|/)(app\\.module|app\\.factory|app\\.setup|cli\\.module|cli|main)$`,
  message: `${what} stands below ${[...folders.map((f) => `${f}/`), 'the application files'].join(', ')}`,
});
const layers = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/*
 * Role suffixes of injectables (`teams.service.ts`, `search-tables.job.ts`…). An injectable whose file name has
 * none takes the service role through one of the lists below: the write path (`writer`) and the helpers beside
 * services (authenticators, signers, sandboxes). Either stands where services stand: it may import repositories,
 * entities, read models, policies, errors and services, never a controller or presenter, and nothing below a
 * service (repository, presenter, entity, read model, errors, policy, DTO) imports it. The rule
 * `quire/injectable-role` fails for an `@Injectable()` in a file with neither a suffix nor an entry here.
 */
const INJECTABLE_SUFFIXES = [
  'service',
  'repository',
  'controller',
  'guard',
  'presenter',
  'policy',
  'module',
  'job',
  'listener',
  'interceptor',
  'pipe',
  'subscriber',
  'renderer',
  'dto',
];
const WRITERS = [
  'src/modules/**/*-writer.ts',
  'src/modules/space-writes/space-unit-of-work.ts',
  'src/modules/change-requests/change-request-revisions.ts',
  'src/modules/sites/site-writes.ts',
];
const HELPERS = [
  'src/modules/published/site-auth/site-token-authenticator.ts',
  'src/modules/published/site-auth/site-token-keys.ts',
  'src/modules/published/site-auth-urls.ts',
  'src/modules/published/snapshot-freshness.ts',
  'src/modules/content/computed/computed-pages.ts',
  'src/modules/content/reader-files/file-url-signer.ts',
  'src/modules/openapi-specs/source/spec-workers.ts',
  'src/modules/openapi-specs/source/spec-loader.ts',
  'src/modules/sites/freshness/renderer-revalidation.ts',
  'src/modules/integrations/runtime/script-dispatcher.ts',
  'src/modules/integrations/runtime/script-sandbox.ts',
  'src/modules/integrations/script-auth/script-authenticator.ts',
  'src/modules/spaces/clock.ts',
  'src/modules/insights/insights-ingest.gate.ts',
];
const SERVICE_LIKE = [...WRITERS, ...HELPERS];
/** An import of a writer or helper, by the file's name (`./space-unit-of-work`, `../content/revision-writer`). */
const serviceLike = (message) => ({
  regex: `(^|/)(${SERVICE_LIKE.map((file) => file.replace(/^.*\//, '').replace(/\.ts$/, '').replace('*', '[^/]*')).join('|')})(\\.ts)?$`,
  message: `${message} (it imports no writer or helper of the service role: eslint.config.mjs, WRITERS and HELPERS)`,
});
const globToRegExp = (glob) =>
  new RegExp(
    `(^|/)${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\//g, '\0')
      .replace(/\*/g, '[^/]*')
      .replace(/\0/g, '(?:.*/)?')}$`,
  );
const roleOf = (filename) => {
  const file = filename.replace(/\\/g, '/');
  if (new RegExp(`\\.(${INJECTABLE_SUFFIXES.join('|')})\\.ts$`).test(file)) return 'suffix';
  return SERVICE_LIKE.some((glob) => globToRegExp(glob).test(file)) ? 'listed' : null;
};
const quire = {
  rules: {
    'injectable-role': {
      meta: {
        type: 'problem',
        schema: [],
        messages: { none: 'An @Injectable() needs a role: a suffix ({{suffixes}}) or an entry in WRITERS or HELPERS of eslint.config.mjs' },
      },
      create: (context) => ({
        Decorator(node) {
          const callee = node.expression.type === 'CallExpression' ? node.expression.callee : node.expression;
          if (callee.type !== 'Identifier' || callee.name !== 'Injectable') return;
          if (roleOf(context.filename)) return;
          context.report({ node, messageId: 'none', data: { suffixes: INJECTABLE_SUFFIXES.map((s) => `*.${s}.ts`).join(', ') } });
        },
      }),
    },
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'scratch/', 'openapi/', 'jest.config.js', 'test/integrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-namespace': 'off',
      'no-console': 'error',
    },
  },
  // The platform below the domain modules.
  { files: ['src/config/**/*.ts'], rules: layers(platform('config/', 'common', 'database', 'health', 'modules')) },
  { files: ['src/common/**/*.ts'], rules: layers(platform('common/', 'database', 'health', 'modules')) },
  { files: ['src/database/**/*.ts'], rules: layers(platform('database/', 'health', 'modules')) },
  { files: ['src/health/**/*.ts'], rules: layers(platform('health/', 'modules')) },
  // Inside the domain modules, by role (the file's suffix). Later blocks replace earlier ones for their files.
  {
    files: ['src/modules/**/*.ts'],
    rules: layers(platform('A domain module'), role('Only controllers present: move a shared type to a *.read-model.ts', 'module', 'controller', 'presenter')),
  },
  { files: ['src/modules/**/*.module.ts'], rules: layers(platform('A domain module')) },
  {
    files: ['src/modules/**/*.controller.ts'],
    rules: layers(
      platform('A domain module'),
      role('A controller calls services and presenters; share code through a service or helper', 'module', 'controller'),
    ),
  },
  {
    files: ['src/modules/**/*.presenter.ts'],
    rules: layers(
      platform('A domain module'),
      role('A presenter shapes entities and read models only', 'module', 'controller', 'service', 'repository', 'guard'),
      serviceLike('A presenter shapes entities and read models only'),
    ),
  },
  {
    files: ['src/modules/**/*.repository.ts'],
    rules: layers(
      platform('A domain module'),
      role('A repository stands below services and presenters: its row types go in a *.read-model.ts', 'module', 'controller', 'presenter', 'service', 'guard'),
      serviceLike('A repository stands below services: it returns what a writer needs to write, the writer writes'),
    ),
  },
  {
    files: [
      'src/modules/**/*.entity.ts',
      'src/modules/**/*.read-model.ts',
      'src/modules/**/*.errors.ts',
      'src/modules/**/*.policy.ts',
      'src/modules/**/dto/**/*.ts',
    ],
    rules: layers(
      platform('A domain module'),
      role(
        'Entities, read models, errors, policies and DTOs are the bottom of a module',
        'module',
        'controller',
        'presenter',
        'service',
        'repository',
        'guard',
      ),
      serviceLike('Entities, read models, errors, policies and DTOs are the bottom of a module'),
    ),
  },
  // Writers and helpers (WRITERS, HELPERS above) take the service role: what services may import, nothing more.
  {
    files: SERVICE_LIKE,
    rules: layers(platform('A domain module'), role('A writer or helper stands where services stand', 'module', 'controller', 'presenter')),
  },
  // Every injectable of a module has a role: a suffix, or an entry in WRITERS or HELPERS.
  { files: ['src/modules/**/*.ts'], plugins: { quire }, rules: { 'quire/injectable-role': 'error' } },
  // Between the space modules, bottom to top: space-model/ → access/ → space-writes/ → collections/, content/
  // (side by side) → spaces/. Kept with the typescript-eslint twin of the rule, so these patterns add to
  // the per-role ones above instead of replacing them.
  ...[
    ['space-model', 'access', 'space-writes', 'collections', 'content', 'spaces'],
    ['access', 'space-writes', 'collections', 'content', 'spaces'],
    ['space-writes', 'collections', 'content', 'spaces'],
    ['collections', 'content', 'spaces'],
    ['content', 'collections', 'spaces', 'change-requests', 'comments'],
    ['change-requests', 'comments'],
  ].map(([folder, ...above]) => ({
    files: [`src/modules/${folder}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(${above.join('|')})/`,
              message: `modules/${folder}/ imports none of ${above.map((f) => `${f}/`).join(', ')} (space modules, bottom to top: space-model/ → access/ → space-writes/ → collections/ and content/ → spaces/; content/ → change-requests/ → comments/)`,
            },
          ],
        },
      ],
    },
  })),
  {
    // Every regular expression that can see request data runs in linear time (issue 25; docs/architecture.md,
    // "Input and CPU budget"): a pattern the analyser cannot prove linear is rewritten or replaced by a scanner.
    files: ['src/**/*.ts'],
    plugins: { regexp },
    rules: {
      ...regexp.configs.recommended.rules,
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      // Patterns of DTOs are published in the OpenAPI document, where a flag does not travel: `[a-zA-Z]` stays.
      'regexp/use-ignore-case': 'off',
    },
  },
  {
    // A module throws its own declared codes through its *.errors.ts helper (`throw teamError('team.not_found', …)`).
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*.errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='DomainError']", message: "Throw through the module's *.errors.ts helper, so the code is one it declares" },
      ],
    },
  },
  {
    // Plain Node scripts (CommonJS) that run before anything is built, and jest's own plug-ins (a sequencer, a transformer).
    files: ['scripts/**/*.js', 'test/support/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', __dirname: 'readonly', process: 'readonly', module: 'writable', Buffer: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off', 'no-console': 'off' },
  },
  {
    // DTO presence: class-validator's IsOptional lets null through; see docs/architecture.md, "Nullability".
    files: ['src/**/dto/**/*.ts', 'src/common/pagination/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message: 'Use @Optional() or @Nullable() from src/common/validation/presence: IsOptional lets null through.',
            },
          ],
        },
      ],
    },
  },
);
