#!/usr/bin/env node
/**
 * The npm registry this project installs from does not serve every platform build of a few
 * native packages (@swc/core-*, @unrs/resolver-binding-*), so `npm install` leaves them out of
 * package-lock.json, and `npm ci` then refuses the lock ("Missing: … from lock file").
 * This adds a lock entry for each optional dependency the lock lacks, marked optional with the
 * platform it is for, so `npm ci` skips it on other platforms as it would anyway.
 * Run after `npm install`: `node scripts/lockfile-platform-entries.js`.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const file = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const added = [];

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const platform = /-(android|darwin|freebsd|linux|openharmony|win32)-([a-z0-9]+)/.exec(name);
    packages[`node_modules/${name}`] = {
      version,
      ...(platform ? { cpu: [platform[2] === 'ia32' ? 'ia32' : platform[2]], os: [platform[1]] } : {}),
      optional: true,
    };
    added.push(`${name}@${version}`);
  }
}

lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(added.length ? `added lock entries: ${added.join(', ')}\n` : 'lock complete\n');
