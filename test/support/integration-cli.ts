import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './server-process';

/** The test-only toolchain: the real `@gitbook/cli` and `@gitbook/runtime`, with the sample integrations. */
export const TOOLCHAIN = join(ROOT, 'test', 'integrations');
export const SAMPLES = join(TOOLCHAIN, 'samples');
const CLI = join(TOOLCHAIN, 'node_modules', '@gitbook', 'cli', 'dist', 'cli.js');

/** Written once `npm ci` finished (inside node_modules, which `npm ci` removes first): a half-made install is not one. */
const INSTALLED = join(TOOLCHAIN, 'node_modules', '.quire-installed');
/** Held (a directory: `mkdir` is atomic) by the one test worker installing; the others wait for it. */
const INSTALL_LOCK = join(TOOLCHAIN, '.install-lock');
/** A lock older than this was left by a killed run. */
const STALE_LOCK_MS = 600_000;

/** Blocks this thread for `ms` (the install is synchronous, as the test files' `beforeAll` calls it). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Installs the toolchain once (`npm ci --ignore-scripts` in test/integrations, from its own lock
 * file) when it is missing: CI runs `npm ci` then `npm test` on a clean clone. Scripts stay off
 * because the CLI's postinstall downloads `cloudflared`, which only `gitbook dev` needs. Test files
 * running side by side take turns under a lock: a second `npm ci` would rewrite the binaries (esbuild)
 * another worker is spawning (`spawn ETXTBSY`).
 */
export function ensureGitbookCli(): void {
  if (existsSync(INSTALLED)) return;
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(INSTALL_LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = statSync(INSTALL_LOCK, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
      rmSync(INSTALL_LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`waited 300 s for another test worker to install the GitBook CLI (${INSTALL_LOCK})`);
    pause(250);
  }
  try {
    if (existsSync(INSTALLED)) return;
    const result = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: TOOLCHAIN,
      encoding: 'utf8',
      env: { ...process.env, SCARF_ANALYTICS: 'false' },
      timeout: 300_000,
    });
    if (result.status !== 0) throw new Error(`could not install the GitBook CLI in ${TOOLCHAIN}: ${result.stderr || result.error}`);
    writeFileSync(INSTALLED, `${new Date().toISOString()}\n`);
  } finally {
    rmSync(INSTALL_LOCK, { recursive: true, force: true });
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `gitbook <args>` in a sample's folder against Quire (GITBOOK_ENDPOINT + GITBOOK_TOKEN, a throwaway config home). */
export function gitbook(sample: string, args: string[], env: { endpoint: string; token: string; organization?: string }): Promise<CliRun> {
  const home = mkdtempSync(join(tmpdir(), 'quire-gitbook-'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: join(SAMPLES, sample),
        timeout: 120_000,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          XDG_CONFIG_HOME: home,
          TMPDIR: home,
          GITBOOK_ENDPOINT: env.endpoint,
          GITBOOK_TOKEN: env.token,
          ...(env.organization ? { GITBOOK_ORGANIZATION: env.organization } : {}),
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Fails with what the CLI printed when it did not exit 0 (a matcher's diff would show the exit code alone). */
export function expectExitedZero(run: CliRun): void {
  if (run.code !== 0) throw new Error(`gitbook exited ${run.code}\nstderr: ${run.stderr.slice(-2000)}\nstdout: ${run.stdout.slice(-1000)}`);
}

/**
 * Runs a long-lived `gitbook <args>` (such as `tail`, which polls until stopped) until its output
 * matches `pattern`, then stops it (its own process group). Resolves with the output so far.
 */
export function gitbookUntil(
  sample: string,
  args: string[],
  env: { endpoint: string; token: string },
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<{ matched: boolean; output: string }> {
  const home = mkdtempSync(join(tmpdir(), 'quire-gitbook-'));
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: join(SAMPLES, sample),
    detached: true,
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, TMPDIR: home, GITBOOK_ENDPOINT: env.endpoint, GITBOOK_TOKEN: env.token },
  });
  let output = '';
  return new Promise((resolve) => {
    const finish = (matched: boolean) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      resolve({ matched, output });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) finish(true);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', () => finish(pattern.test(output)));
  });
}

/**
 * A stand-in for the `cloudflared` binary `gitbook dev` spawns (its postinstall would download it):
 * prints a quick-tunnel URL and a registered connection, as cloudflared does, then waits.
 */
export function installCloudflaredStandIn(tunnelUrl = 'https://quire-test.trycloudflare.com'): string {
  const path = join(TOOLCHAIN, 'node_modules', '@gitbook', 'cli', 'dist', 'cloudflared');
  writeFileSync(path, `#!/bin/sh\necho "INF |  ${tunnelUrl}  |" >&2\necho "INF Registered tunnel connection" >&2\nexec sleep 600\n`);
  chmodSync(path, 0o755);
  return tunnelUrl;
}

/** The script the CLI built for a sample on its last run (it writes it to $TMPDIR/.gitbook/<name>/script.js). */
export function readManifestName(sample: string): string {
  return /^name:\s*(\S+)/m.exec(readFileSync(join(SAMPLES, sample, 'gitbook-manifest.yaml'), 'utf8'))![1];
}
