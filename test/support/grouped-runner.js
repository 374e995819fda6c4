/**
 * Jest's own runner, with the test files of a run packed into groups that share one module registry.
 *
 * Jest gives every test file a module registry of its own: each e2e file loads NestJS, TypeORM and the whole app
 * again (about 2.7 s of CPU on the 2-core CI machine, measured), and a full run paid that 124 times. Here the files
 * of one project that jest would run are packed, longest first, into groups of about `GROUP_SECONDS` by the last
 * run's times (test/support/sequencer.js); each group runs as one generated file that requires its members, each
 * inside a `describe` named after the member's path. What reaches the reporters, the `--json` output and the
 * sequencer's record is split back per member, with the same test names as when the file runs alone, so a run reads
 * as before, file by file.
 *
 * A file runs alone (a registry of its own, as jest would run it) when it replaces modules for its whole registry
 * (`jest.mock`, `jest.resetModules`…), asks for another test environment (`@jest-environment`), runs job workers, or
 * says `@quire-test-alone` in a comment (with the reason). A run of a single file is the file alone. What members of a
 * group share: loaded modules and their state; so a test file leaves neither a server nor a timer behind it
 * (docs/testing.md). Each member's tests start from `process.env` as the group found it.
 */
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const TestRunner = require('jest-runner').default;
// Jest's own formatting of failures, as jest-runner has it (a dependency of jest's, not of the project's).
const { formatExecError, formatResultsErrors } = require(require.resolve('jest-message-util', { paths: [require.resolve('jest-runner')] }));

/** A group's target length: long enough to save most loads, short enough that two workers finish together. */
const GROUP_SECONDS = Number(process.env.QUIRE_TEST_GROUP_SECONDS ?? 60);
/** The time assumed for a file with no time recorded yet. */
const UNKNOWN_SECONDS = 10;
/**
 * What makes a file run alone: it replaces modules for its registry, names another environment, runs job workers
 * (`JOBS_ENABLED: 'true'`: a job still running when its app closes keeps pg-boss's stop loop going past the file, as
 * it would alone, and its modules must not be the next file's), or says so.
 */
const ALONE = /jest\.(mock|doMock|unmock|resetModules|unstable_mockModule)\(|@jest-environment|@quire-test-alone|JOBS_ENABLED: 'true'/;

class GroupedTestRunner {
  supportsEventEmitters = true;
  isSerial = false;
  /** Listeners by event name; `emit` awaits each in turn, as jest's own runner does. */
  #listeners = new Map();

  constructor(globalConfig, context) {
    this._globalConfig = globalConfig;
    this._context = context;
  }

  on(eventName, listener) {
    if (!this.#listeners.has(eventName)) this.#listeners.set(eventName, new Set());
    this.#listeners.get(eventName).add(listener);
    return () => this.#listeners.get(eventName).delete(listener);
  }

  async #emit(eventName, payload) {
    for (const listener of this.#listeners.get(eventName) ?? []) await listener(payload);
  }

  async runTests(tests, watcher, options) {
    const units = plan(tests);
    const inner = new TestRunner(this._globalConfig, this._context);
    const byPath = new Map(units.map((unit) => [unit.test.path, unit]));
    const forward = (eventName, map) =>
      inner.on(eventName, async (payload) => {
        const unit = byPath.get(eventName.startsWith('test-case') ? payload[0] : payload[0].path);
        for (const args of unit?.members ? map(unit, payload) : [payload]) await this.#emit(eventName, args);
      });
    const unsubscribe = [
      forward('test-file-start', (unit) => unit.members.map((member) => [member])),
      forward('test-file-success', (unit, [, result]) => split(unit, result, this._globalConfig).map((part, i) => [unit.members[i], part])),
      forward('test-file-failure', (unit, [, error]) => unit.members.map((member) => [member, error])),
      forward('test-case-start', (unit, [, info]) => [caseOf(unit, info)].filter(Boolean)),
      forward('test-case-result', (unit, [, result]) => [caseOf(unit, result)].filter(Boolean)),
    ];
    try {
      await inner.runTests(
        units.map((unit) => unit.test),
        watcher,
        options,
      );
    } finally {
      unsubscribe.forEach((off) => off());
    }
  }
}

/**
 * The units to run, longest first: each file that must run alone, and groups of the others packed per project
 * (first fit, longest first) up to `groupSeconds`. A group of one is the file itself.
 */
function plan(tests, groupSeconds = GROUP_SECONDS) {
  const seconds = (test) => (test.duration == null ? UNKNOWN_SECONDS : test.duration / 1000);
  const units = [];
  const byProject = new Map();
  for (const test of tests) {
    if (ALONE.test(readFileSync(test.path, 'utf8'))) {
      units.push({ test, seconds: seconds(test) });
      continue;
    }
    const key = test.context.config.id;
    if (!byProject.has(key)) byProject.set(key, []);
    byProject.get(key).push(test);
  }
  for (const members of byProject.values()) {
    const bins = [];
    for (const test of [...members].sort((a, b) => seconds(b) - seconds(a))) {
      const bin = bins.find((candidate) => candidate.seconds + seconds(test) <= groupSeconds);
      if (bin) {
        bin.members.push(test);
        bin.seconds += seconds(test);
      } else bins.push({ members: [test], seconds: seconds(test) });
    }
    bins.forEach((bin, index) => units.push(bin.members.length === 1 ? { test: bin.members[0], seconds: bin.seconds } : groupUnit(bin, index)));
  }
  return units.sort((a, b) => b.seconds - a.seconds);
}

/** The generated file of a group: each member required inside a `describe` named by its path (the split's key). */
function groupUnit(bin, index) {
  const { config } = bin.members[0].context;
  const titles = bin.members.map((test) => relative(config.rootDir, test.path));
  const directory = join(config.cacheDirectory, 'quire-test-groups', String(config.id));
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `group-${index + 1}.js`);
  // A member that does not load fails alone (as "Test suite failed to run" would), and the others still run. Each
  // member's tests start from process.env as the group found it, as a file run alone does (jest copies it per file).
  const body = bin.members.map(
    (test, i) =>
      `describe(${JSON.stringify(titles[i])}, () => {\n  beforeAll(restoreEnv);\n  try {\n    require(${JSON.stringify(test.path)});\n  } catch (error) {\n    test('loads', () => {\n      throw error;\n    });\n  }\n});\n`,
  );
  const head = [
    '// Generated by test/support/grouped-runner.js for one run: its members share one module registry.',
    'const startEnv = { ...process.env };',
    'const restoreEnv = () => {',
    '  for (const key of Object.keys(process.env)) if (!(key in startEnv)) delete process.env[key];',
    '  Object.assign(process.env, startEnv);',
    '};',
  ];
  writeFileSync(path, `${head.join('\n')}\n${body.join('')}`);
  return {
    test: { path, context: bin.members[0].context, duration: bin.seconds * 1000 },
    seconds: bin.seconds,
    members: bin.members,
    titles,
  };
}

/** The member a test case of the group belongs to (its first title is the member's path), or -1. */
const memberIndex = (unit, result) => unit.titles.indexOf(result.ancestorTitles?.[0]);

/** A test case of a group as its member reports it alone: the member's path out of its titles. */
function caseOf(unit, result) {
  const index = memberIndex(unit, result);
  if (index < 0) return null;
  return [unit.members[index].path, withoutGroupTitle(result, unit.titles[index])];
}

function withoutGroupTitle(result, title) {
  return {
    ...result,
    ancestorTitles: result.ancestorTitles.slice(1),
    fullName: result.fullName.startsWith(`${title} `) ? result.fullName.slice(title.length + 1) : result.fullName,
  };
}

/**
 * One result per member from the group's result: its own test cases, counts and failure message; its share of the
 * group's time (its tests' time plus an equal part of the rest). The group's console and open handles go with its
 * first member; an error of the group as a whole (a member that does not load) goes with every member.
 */
function split(unit, result, globalConfig) {
  const cases = unit.titles.map(() => []);
  for (const test of result.testResults) {
    const index = memberIndex(unit, test);
    cases[Math.max(index, 0)].push(index < 0 ? test : withoutGroupTitle(test, unit.titles[index]));
  }
  const total = result.perfStats.runtime ?? result.perfStats.end - result.perfStats.start;
  const own = cases.map((list) => list.reduce((sum, test) => sum + (test.duration ?? 0), 0));
  const rest = Math.max(0, total - own.reduce((a, b) => a + b, 0)) / unit.members.length;
  return unit.members.map((member, i) => {
    const list = cases[i];
    const count = (status) => list.filter((test) => test.status === status).length;
    const { config } = member.context;
    const runtime = Math.round(own[i] + rest);
    const failureMessage = result.testExecError
      ? formatExecError(result.testExecError, config, globalConfig, member.path)
      : formatResultsErrors(list, config, globalConfig, member.path);
    return {
      ...result,
      console: i === 0 ? result.console : undefined,
      openHandles: i === 0 ? result.openHandles : [],
      testFilePath: member.path,
      testResults: list,
      numFailingTests: count('failed'),
      numPassingTests: count('passed'),
      numPendingTests: count('pending') + count('skipped'),
      numTodoTests: count('todo'),
      skipped: list.length > 0 && list.every((test) => test.status === 'pending' || test.status === 'skipped'),
      failureMessage,
      perfStats: { ...result.perfStats, runtime, slow: runtime / 1000 > config.slowTestThreshold },
    };
  });
}

module.exports = GroupedTestRunner;
// For test/unit/grouped-runner.spec.ts.
module.exports.plan = plan;
module.exports.split = split;
