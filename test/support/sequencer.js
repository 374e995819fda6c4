/**
 * Jest runs the files that took longest last time first, so the two workers finish together. Its own record of
 * those times is keyed by each file's absolute path, in a folder named after the checkout's path: a fresh clone
 * finds none and orders by file size (a 60-second file can start last). This sequencer keeps the same record by
 * the file's path within the project, one per jest project, in jest's cache folder, so any checkout on the
 * machine orders by the times of the last run. Same rules as jest's: files that failed last time first, then
 * files with no time (by size), then the longest.
 */
const { writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const FAIL = 0;
const SUCCESS = 1;

class ProjectPathSequencer extends Sequencer {
  _getCachePath(context) {
    const project = context.config.displayName?.name ?? 'default';
    return join(context.config.cacheDirectory, `quire-test-times-${project}.json`);
  }

  key(test) {
    return relative(test.context.config.rootDir, test.path);
  }

  hasFailed(test) {
    return this._getCache(test)[this.key(test)]?.[0] === FAIL;
  }

  time(test) {
    return this._getCache(test)[this.key(test)]?.[1];
  }

  cacheResults(tests, results) {
    const byPath = new Map(tests.map((test) => [test.path, test]));
    for (const result of results.testResults) {
      const test = byPath.get(result.testFilePath);
      if (!test || result.skipped) continue;
      const perf = result.perfStats;
      const runtime = perf.runtime ?? test.duration ?? perf.end - perf.start;
      this._getCache(test)[this.key(test)] = [result.numFailingTests > 0 || result.testExecError ? FAIL : SUCCESS, runtime || 0];
    }
    for (const [context, cache] of this._cache.entries()) writeFileSync(this._getCachePath(context), JSON.stringify(cache));
  }
}

module.exports = ProjectPathSequencer;
