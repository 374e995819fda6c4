import 'reflect-metadata';
import { runCli } from './cli/program';
import { loadDotEnv } from './config/dotenv';

/** Admin CLI entry point: `npm run -s cli -- <command>` or `node dist/src/cli.js <command>`. */
loadDotEnv();
void runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
});
