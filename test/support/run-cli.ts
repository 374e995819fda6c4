import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runCli as run } from '../../src/cli/program';
import { directEnv } from './database';
import { ROOT } from './server-process';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin CLI in-process (the same `runCli` that `npm run cli` calls), with `env` added to
 * this process's environment. In-process saves a TypeScript transpile per call (2-3 s each on a
 * 2-core machine); the README's literal command is run once, as a process, in cli.e2e-spec.ts.
 */
export async function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: { ...process.env, ...directEnv(env.DATABASE_URL), ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, stdout, stderr };
}

/**
 * Runs the admin CLI as its own process, for tests about processes: several of them sharing one
 * embedded PostgreSQL. (The embedded server's binaries are also ES modules jest does not load.)
 */
export function runCliProcess(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', require.resolve('@swc-node/register'), join(ROOT, 'src', 'cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...directEnv(env.DATABASE_URL), ...env } as NodeJS.ProcessEnv,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
