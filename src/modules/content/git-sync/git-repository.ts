import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Why a repository URL or ref is refused (a 400 at the request, a failed job later). */
export class GitRepositoryError extends Error {}

/** The largest repository an import reads (all of its files are held in memory at once). */
const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/**
 * The repository path `url` names (`file:///…` or an absolute path), which must resolve (symlinks
 * included) inside `root`. A path that does not exist yet is checked through its nearest existing
 * ancestor, so an export may create it.
 */
export function confinedPath(url: string, root: string): string {
  let path: string;
  if (url.startsWith('file:')) {
    try {
      path = fileURLToPath(url);
    } catch {
      throw new GitRepositoryError('url: must be a file:/// URL or an absolute path');
    }
  } else if (isAbsolute(url)) path = url;
  else throw new GitRepositoryError('url: must be a file:/// URL or an absolute path under the server’s Git Sync root');
  path = resolve(path);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new GitRepositoryError('url: this server has no Git Sync root directory');
  }
  let existing = path;
  const missing: string[] = [];
  while (!existsSync(existing)) {
    missing.unshift(existing.slice(dirname(existing).length + 1));
    existing = dirname(existing);
  }
  const real = resolve(realpathSync(existing), ...missing);
  const inside = relative(realRoot, real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || inside.split(sep).includes('..')) {
    throw new GitRepositoryError('url: must name a repository under the server’s Git Sync root');
  }
  return real;
}

/** A git ref as the public body gives it (`refs/heads/main`), or a branch name; never an option. */
export function checkRef(ref: string): string {
  if (!/^[\w./-]{1,250}$/.test(ref) || ref.startsWith('-') || ref.includes('..') || ref.endsWith('/') || ref.endsWith('.lock')) {
    throw new GitRepositoryError('ref: must be a git ref such as refs/heads/main');
  }
  return ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
}

interface RunResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
}

/** Runs git without a shell, with no configuration of the user's or the system's. */
function git(args: string[], options: { cwd: string; input?: Buffer | string; maxBytes?: number }): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: options.cwd, LANG: 'C' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > (options.maxBytes ?? MAX_IMPORT_BYTES)) child.kill();
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (size > (options.maxBytes ?? MAX_IMPORT_BYTES)) reject(new GitRepositoryError('the repository is larger than an import reads'));
      else resolvePromise({ stdout: Buffer.concat(chunks), stderr, code });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

async function gitOk(args: string[], cwd: string, input?: Buffer | string): Promise<Buffer> {
  const result = await git(args, { cwd, input });
  if (result.code !== 0) throw new GitRepositoryError(`git ${args[0]}: ${result.stderr.trim().split('\n').pop() ?? 'failed'}`);
  return result.stdout;
}

/** Whether `path` is a git repository (bare or with a work tree). */
export async function isRepository(path: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  const result = await git(['rev-parse', '--git-dir'], { cwd: path });
  return result.code === 0;
}

/** The commit `ref` points at in the repository at `path`; null when the ref does not exist. */
export async function resolveCommit(path: string, ref: string): Promise<string | null> {
  const result = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: path });
  return result.code === 0 ? result.stdout.toString().trim() : null;
}

/** Every file of the commit `ref` points at: path → bytes (one `ls-tree` and one `cat-file --batch`, whatever the count). */
export async function readTree(path: string, ref: string): Promise<{ commit: string; message: string; files: Map<string, Buffer> }> {
  const commit = await resolveCommit(path, ref);
  if (!commit) throw new GitRepositoryError(`ref: ${ref} not found in the repository`);
  const message = (await gitOk(['log', '-1', '--format=%B', commit], path)).toString().trim();
  const listing = (await gitOk(['ls-tree', '-r', '-z', '--full-tree', commit], path)).toString('utf8');
  const entries: { oid: string; path: string }[] = [];
  for (const line of listing.split('\0')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const [mode, type, oid] = line.slice(0, tab).split(' ');
    // Symlinks (120000) and submodules are not content.
    if (type === 'blob' && mode !== '120000') entries.push({ oid, path: line.slice(tab + 1) });
  }
  const out = await gitOk(['cat-file', '--batch'], path, entries.map((entry) => `${entry.oid}\n`).join(''));
  const files = new Map<string, Buffer>();
  let offset = 0;
  for (const entry of entries) {
    const headerEnd = out.indexOf(10, offset);
    const size = Number(out.subarray(offset, headerEnd).toString().split(' ')[2]);
    files.set(entry.path, out.subarray(headerEnd + 1, headerEnd + 1 + size));
    offset = headerEnd + 1 + size + 1;
  }
  return { commit, message, files };
}

/**
 * Commits `files` as the whole tree of `ref` (on top of its current commit, if any) with one
 * `git fast-import`: no work tree is read or written, so a bare repository is the usual target, and
 * a checked-out branch of a repository with a work tree is moved without touching its files. A
 * repository that does not exist is created bare.
 */
export async function commitTree(
  path: string,
  ref: string,
  files: Map<string, Buffer>,
  message: string,
  author: { name: string; email: string },
): Promise<string> {
  if (!(await isRepository(path))) {
    await mkdir(path, { recursive: true });
    await gitOk(['init', '--bare', '--quiet', '--initial-branch=main'], path);
  }
  const parent = await resolveCommit(path, ref);
  const now = Math.floor(Date.now() / 1000);
  const who = `${author.name.replace(/[<>\n]/g, '')} <${author.email.replace(/[<>\n]/g, '')}> ${now} +0000`;
  const parts: Buffer[] = [];
  const text = (value: string) => parts.push(Buffer.from(value));
  const data = (bytes: Buffer) => {
    text(`data ${bytes.length}\n`);
    parts.push(bytes, Buffer.from('\n'));
  };
  text(`commit ${ref}\nauthor ${who}\ncommitter ${who}\n`);
  data(Buffer.from(message));
  if (parent) text(`from ${parent}\n`);
  text('deleteall\n');
  for (const [file, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    text(`M 100644 inline ${quotePath(file)}\n`);
    data(bytes);
  }
  text('done\n');
  await gitOk(['fast-import', '--quiet', '--done'], path, Buffer.concat(parts));
  return (await resolveCommit(path, ref)) as string;
}

/** A path as fast-import reads it: quoted C-style when it has a quote, a backslash, a newline or starts with `"`. */
function quotePath(path: string): string {
  if (!/["\\\n]/.test(path)) return path;
  return `"${path.replace(/[\\"]/g, (char) => `\\${char}`).replace(/\n/g, '\\n')}"`;
}
