import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { plan, split } = require('../support/grouped-runner') as {
  plan(tests: FakeTest[], groupSeconds?: number): Array<{ test: FakeTest; seconds: number; members?: FakeTest[]; titles?: string[] }>;
  split(unit: { members: FakeTest[]; titles: string[] }, result: object, globalConfig: object): Array<Record<string, any>>;
};

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { id: string; rootDir: string; cacheDirectory: string; slowTestThreshold: number } };
}

describe('grouped test runner (test/support/grouped-runner.js)', () => {
  const root = mkdtempSync(join(tmpdir(), 'quire-groups-'));
  const config = (id: string) => ({ id, rootDir: root, cacheDirectory: join(root, 'cache'), slowTestThreshold: 5, rootDirs: [root] });
  const file = (name: string, source: string, seconds: number | undefined, project = 'e2e'): FakeTest => {
    writeFileSync(join(root, name), source);
    return { path: join(root, name), duration: seconds === undefined ? undefined : seconds * 1000, context: { config: config(project) } };
  };

  it('packs the files of each project, longest first, into groups of about 60 s; a file that mocks modules, runs job workers, or a long one, runs alone', () => {
    const tests = [
      file('a.ts', 'it()', 50),
      file('b.ts', 'it()', 30),
      file('c.ts', 'it()', 25),
      file('d.ts', "jest.mock('./x', () => ({}));", 5),
      file('e.ts', 'it()', 90),
      file('f.ts', 'it()', 8),
      file('g.ts', '/* @quire-test-alone: reads require.cache */', 1),
      file('h.ts', "createTestApp({ JOBS_ENABLED: 'true' })", 0.5),
      file('u.ts', 'it()', 2, 'unit'),
      file('v.ts', 'it()', undefined, 'unit'),
    ];
    const units = plan(tests, 60);
    const names = units.map((unit) => (unit.members ?? [unit.test]).map((test) => test.path.slice(root.length + 1)));
    expect(names).toEqual([['e.ts'], ['a.ts', 'f.ts'], ['b.ts', 'c.ts'], ['v.ts', 'u.ts'], ['d.ts'], ['g.ts'], ['h.ts']]);
    expect(units.map((unit) => unit.seconds)).toEqual([90, 58, 55, 12, 5, 1, 0.5]);
    // A group is one generated file requiring each member inside a describe named by its path.
    const group = units[1];
    const source = readFileSync(group.test.path, 'utf8');
    expect(group.titles).toEqual(['a.ts', 'f.ts']);
    expect(source).toContain(`describe("a.ts", () => {\n  beforeAll(restoreEnv);\n  try {\n    require(${JSON.stringify(join(root, 'a.ts'))});`);
    expect(source.indexOf('"a.ts"')).toBeLessThan(source.indexOf('"f.ts"'));
  });

  it('splits a group result back per member, with the names, counts, failures and time each has alone', () => {
    const members = [file('one.ts', 'it()', 1), file('two.ts', 'it()', 1)];
    const unit = { members, titles: ['one.ts', 'two.ts'] };
    const testCase = (title: string, inner: string[], status: string, duration: number) => ({
      ancestorTitles: [title, ...inner],
      fullName: [title, ...inner, 'works'].join(' '),
      title: 'works',
      status,
      duration,
      failureMessages: status === 'failed' ? ['Error: expected 1 to be 2\n    at Object.<anonymous> (two.ts:3:1)'] : [],
      failureDetails: [],
      numPassingAsserts: 0,
    });
    const result = {
      testResults: [
        testCase('one.ts', ['spaces'], 'passed', 100),
        testCase('one.ts', ['spaces'], 'pending', 0),
        testCase('two.ts', ['sites', 'PUT'], 'failed', 300),
      ],
      perfStats: { start: 1000, end: 2000, runtime: 1000, slow: false },
      console: [{ message: 'hello' }],
      openHandles: [],
      snapshot: {},
    };
    const [one, two] = split(unit, result, { rootDir: root, testPathPatterns: [] });
    expect(one.testFilePath).toBe(members[0].path);
    expect(one.testResults.map((test: { fullName: string; ancestorTitles: string[] }) => [test.fullName, test.ancestorTitles])).toEqual([
      ['spaces works', ['spaces']],
      ['spaces works', ['spaces']],
    ]);
    expect([one.numPassingTests, one.numPendingTests, one.numFailingTests, one.failureMessage]).toEqual([1, 1, 0, null]);
    expect([two.numPassingTests, two.numFailingTests]).toEqual([0, 1]);
    expect(two.failureMessage).toContain('sites › PUT › works');
    expect(two.failureMessage).not.toContain('two.ts › sites');
    // Each has its tests' time and half of the rest (1000 - 400 = 600 ms); the console goes with the first.
    expect([one.perfStats.runtime, two.perfStats.runtime]).toEqual([400, 600]);
    expect([one.console, two.console]).toEqual([result.console, undefined]);
  });
});
