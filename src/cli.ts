import 'reflect-metadata';
import { runCli } from './cli/program';
import { loadDotEnv } from './config/dotenv';

/** Admin CLI entry point: `npm run -s cli -- <command>` or `node dist/src/cli.js <command>`. */
loadDotEnv();
let finished = false;
// A command whose work waits on something that can no longer happen (nothing left to wake it) would otherwise end
// with code 0 and no output: say so and fail instead.
process.once('beforeExit', () => {
  if (finished) return;
  process.stderr.write('quire: the command ended before it finished (it was waiting on something that cannot happen)\n');
  process.exitCode = 1;
});
void runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  finished = true;
  process.exitCode = code;
});
