/**
 * @swc/jest, with a cache key and an output that name files by their path within the project. Jest keys its
 * transform cache with the project's whole configuration, absolute paths included, and @swc/jest's inline source
 * maps name each source by its absolute path: a fresh clone of the repository compiled every module again (the
 * application's, the tests' and the ES-module packages'), and a cache shared between checkouts would point stack
 * traces at another checkout. Here the key is the source, its path within the project and the swc options and
 * versions (what decides the output), and a source map names its source relative to the compiled file, so
 * every checkout on the machine shares one cache (with a fixed project `id` in jest.config.js).
 */
const { basename } = require('node:path');
const swcJest = require('@swc/jest');

const INLINE_MAP = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/** The inline source map's `sources` made relative to the compiled file (its own name). */
function relativeSources(code, filename) {
  const found = INLINE_MAP.exec(code);
  if (!found) return code;
  const map = JSON.parse(Buffer.from(found[1], 'base64').toString('utf8'));
  map.sources = (map.sources ?? []).map((source) => (source === filename ? basename(filename) : source));
  return `${code.slice(0, found.index)}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

module.exports = {
  createTransformer(options) {
    const swc = swcJest.createTransformer(options);
    return {
      ...swc,
      process(src, filename, jestOptions) {
        const output = swc.process(src, filename, jestOptions);
        return { ...output, code: relativeSources(output.code, filename) };
      },
      // The configuration string holds absolute paths; what in it decides the output (the swc options) is in swc's own key.
      getCacheKey(src, filename, jestOptions) {
        return swc.getCacheKey(src, filename, { ...jestOptions, configString: '' });
      },
    };
  },
};
