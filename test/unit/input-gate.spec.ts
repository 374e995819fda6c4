import { findJsonShapeProblem, findNulCharacter } from '../../src/common/input-gate/json-shape';
import { findUrlTextProblem } from '../../src/common/input-gate/url-text';
import { summarizeProblems } from '../../src/common/errors/validation';
import { cpuMillis } from '../support/cpu-time';

const limits = { maxKeys: 3, maxArrayLength: 2, maxDepth: 3 };

describe('findJsonShapeProblem', () => {
  it('accepts bodies within every limit, whatever strings hold', () => {
    expect(findJsonShapeProblem('{"a":1,"b":[1,2],"c":{"d":"x:y,{[\\"]}"}}', limits)).toBeUndefined();
    expect(findJsonShapeProblem('[[1,2],[3]]', limits)).toBeUndefined();
    expect(findJsonShapeProblem('{}', limits)).toBeUndefined();
  });

  it('names the object with too many keys, the array with too many items, and the level too deep', () => {
    expect(findJsonShapeProblem('{"a":1,"b":2,"c":3,"d":4}', limits)).toBe('body: has more than the limit of 3 keys');
    expect(findJsonShapeProblem('{"list":[1,2,3]}', limits)).toBe('list: has more than the limit of 2 items');
    expect(findJsonShapeProblem('{"a":{"b\\u002ec":{"d":{}}}}', limits)).toBe('a.b.c.d: nesting is deeper than the limit of 3 levels');
    expect(findJsonShapeProblem('{"a":[0,{"b":[]}]}', limits)).toBe('a.1.b: nesting is deeper than the limit of 3 levels');
  });

  it('ends a string at the first quote not escaped, whatever run of backslashes comes before it', () => {
    // The text "x\\" ends after an escaped backslash; "y\"{[" holds an escaped quote: neither opens a level nor hides a key.
    expect(findJsonShapeProblem('{"a":"x\\\\","b":"y\\"{[","c":{}}', limits)).toBeUndefined();
    expect(findJsonShapeProblem('{"a":"x\\\\","b":"y\\"{[","c":1,"d":2}', limits)).toBe('body: has more than the limit of 3 keys');
    expect(findJsonShapeProblem('{"k\\\\":{"\\"q":{"r":{}}}}', limits)).toBe('k\\."q.r: nesting is deeper than the limit of 3 levels');
    expect(findJsonShapeProblem('{"a":"unterminated', limits)).toBeUndefined();
  });

  it('stops early and stays linear on hostile input', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"${i}":1`).join(',');
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const cpu = cpuMillis(() => {
      expect(findJsonShapeProblem(`{${keys}}`, { maxKeys: 1000, maxArrayLength: 1000, maxDepth: 64 })).toMatch(/1000 keys/);
      expect(findJsonShapeProblem(deep, { maxKeys: 1000, maxArrayLength: 1000, maxDepth: 64 })).toMatch(/64 levels/);
      expect(findJsonShapeProblem(`[${keys.replace(/"\d+":/g, '')}]`, { maxKeys: 1000, maxArrayLength: 1_000_000, maxDepth: 64 })).toBeUndefined();
    });
    expect(cpu).toBeLessThan(1000);
  });
});

describe('findNulCharacter', () => {
  it('names the string or the object whose key holds NUL', () => {
    expect(findNulCharacter({ a: ['ok', 'b\0'] })).toBe('a.1: must not contain NUL characters');
    expect(findNulCharacter({ a: { 'k\0': 1 } })).toBe('a: keys must not contain NUL characters');
    expect(findNulCharacter('\0')).toBe('body: must not contain NUL characters');
    expect(findNulCharacter({ a: 'fine', b: [1, null, true] })).toBeUndefined();
  });
});

describe('findUrlTextProblem', () => {
  it('refuses NUL and malformed UTF-8 in the path and the query, naming the parameter', () => {
    expect(findUrlTextProblem('/v1/spaces/a%00b')).toBe('path: must not contain NUL characters');
    expect(findUrlTextProblem('/v1/spaces/%C3%28')).toBe('path: must be UTF-8 when percent-decoded');
    expect(findUrlTextProblem('/v1/x?query=a%00b&limit=1')).toBe('query parameter "query": must not contain NUL characters');
    expect(findUrlTextProblem('/v1/x?title=%FF')).toBe('query parameter "title": must be UTF-8 when percent-decoded');
    expect(findUrlTextProblem('/v1/x?a%00=1')).toBe('query: parameter names must not contain NUL characters');
  });

  it('accepts ordinary URLs, including a lone percent sign and plus signs', () => {
    expect(findUrlTextProblem('/v1/spaces/abc/content/path/caf%C3%A9?query=100%+off&page=a+b')).toBeUndefined();
    expect(findUrlTextProblem('/health/live')).toBeUndefined();
  });
});

describe('summarizeProblems', () => {
  it('lists the first five problems, then counts the rest, each problem capped in length', () => {
    const problems = Array.from({ length: 8 }, (_, i) => `f${i}: bad`);
    expect(summarizeProblems(problems)).toBe('f0: bad; f1: bad; f2: bad; f3: bad; f4: bad; and 3 more');
    expect(summarizeProblems(['x'.repeat(1000)]).length).toBeLessThan(310);
    expect(summarizeProblems(['a: bad'])).toBe('a: bad');
  });
});
