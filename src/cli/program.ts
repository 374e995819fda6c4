import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DataSource } from 'typeorm';
import { CliModule } from '../cli.module';
import { configureSecretCipher, SecretDecryptionError } from '../common/crypto/secret-cipher';
import { checkEncryptionKey, rotateRows } from '../common/crypto/secret-columns';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../common/roles';
import { AppConfig, loadConfig } from '../config/app-config';
import { ConfigError } from '../config/env.schema';
import { createDataSource, runMigrations } from '../database/data-source';
import { resolveDatabase, ResolvedDatabase } from '../database/database-url';
import { AdminService } from '../modules/admin/admin.service';
import { verifyOrganization } from '../modules/audit/audit-chain';

/** Where a CLI run reads its settings and writes its output: the process, or a test calling it in-process. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Checks `--role`; `guest` stays a string here (commander treats null as "no value") and maps to null later. */
function parseRole(value: string): string {
  if (value === 'guest' || (MEMBER_ROLES as readonly string[]).includes(value)) return value;
  throw new InvalidArgumentError(`expected one of ${MEMBER_ROLES.join(', ')}, guest`);
}

/**
 * Admin CLI. Results go to stdout as exactly one JSON line; progress and errors go to stderr.
 * On the embedded database it connects to the running server's PostgreSQL, or starts it itself.
 * Resolves to the exit code; never calls process.exit, so tests run it in-process.
 */
async function withDatabase<T>(io: CliIo, work: (config: AppConfig, url: string) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  // The key opens the secrets the migrations and commands read or write (a bad key: one line, exit 1).
  configureSecretCipher(config);
  const database: ResolvedDatabase = await resolveDatabase(config, (line) => io.stderr(`${line}\n`));
  try {
    // An admin command connects past any pooler (DATABASE_DIRECT_URL): migrations and their runner's session state.
    return await work(config, database.directUrl);
  } finally {
    await database.release();
  }
}

async function withAdmin<T>(io: CliIo, work: (admin: AdminService) => Promise<T>): Promise<T> {
  return withDatabase(io, async (config, url) => {
    if (config.migrationsRun) {
      const dataSource = await createDataSource(url, 2).initialize();
      try {
        await runMigrations(dataSource);
      } finally {
        await dataSource.destroy();
      }
    }
    const checked = await createDataSource(url, 1).initialize();
    try {
      await checkEncryptionKey((sql, parameters) => checked.query(sql, parameters), configureSecretCipher(config));
    } finally {
      await checked.destroy();
    }
    const context = await NestFactory.createApplicationContext(CliModule.forRoot(config, url), { logger: false });
    try {
      return await work(context.get(AdminService));
    } finally {
      await context.close();
    }
  });
}

async function withDataSource<T>(io: CliIo, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  return withDatabase(io, async (_config, url) => {
    const dataSource = await createDataSource(url, 2).initialize();
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  });
}

/** A broken chain: the result is already printed; the exit code says it. */
class AuditChainBroken extends Error {}

export async function runCli(args: string[], io: CliIo): Promise<number> {
  const log = (line: string) => io.stderr(`${line}\n`);

  const print = (value: unknown): void => io.stdout(`${JSON.stringify(value)}\n`);

  const program = new Command('quire')
    .description('Quire admin CLI')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command('bootstrap')
    .description('create an organization, its first admin and an API token (idempotent for the same title and e-mail)')
    .requiredOption('--org <title>', 'organization title')
    .requiredOption('--email <email>', 'admin e-mail')
    .option('--name <name>', 'admin display name')
    .action(async (options: { org: string; email: string; name?: string }) => {
      const result = await withAdmin(io, (admin) => admin.bootstrap({ orgTitle: options.org, email: options.email, name: options.name }));
      print(result);
    });

  program
    .command('user:create')
    .description('add a user (created if new) to an organization and print a token for them')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--email <email>', 'user e-mail')
    .option('--name <name>', 'display name')
    .addOption(new Option('--role <role>', `${MEMBER_ROLES.join('|')}|guest`).argParser(parseRole).makeOptionMandatory())
    .action(async (options: { org: string; email: string; name?: string; role: string }) => {
      const role = options.role === 'guest' ? null : (options.role as MemberRoleOrGuest);
      print(await withAdmin(io, (admin) => admin.createUser({ organizationId: options.org, email: options.email, name: options.name, role })));
    });

  program
    .command('token:create')
    .description('issue a new API token for an existing user')
    .requiredOption('--email <email>', 'user e-mail')
    .action(async (options: { email: string }) => {
      print(await withAdmin(io, (admin) => admin.createToken(options.email)));
    });

  program
    .command('token:revoke')
    .description('revoke an API token by its secret (a leaked one), or every token of a user; prints how many were revoked')
    .addOption(new Option('--token <secret>', 'the token to revoke').conflicts('email'))
    .addOption(new Option('--email <email>', 'revoke every token of this user').conflicts('token'))
    .action(async (options: { token?: string; email?: string }) => {
      const which = options.token !== undefined ? { secret: options.token } : options.email !== undefined ? { email: options.email } : undefined;
      if (!which) throw new Error('token:revoke needs --token <secret> or --email <email>');
      print(await withAdmin(io, (admin) => admin.revokeTokens(which)));
    });

  program
    .command('secrets:rotate')
    .description(
      're-encrypt every secret at rest under ENCRYPTION_KEY (or the key file), opening them with it or ENCRYPTION_PREVIOUS_KEYS; prints the new key id and the rows changed',
    )
    .action(async () => {
      const result = await withDatabase(io, async (config, url) => {
        const cipher = configureSecretCipher(config);
        const dataSource = await createDataSource(url, 2).initialize();
        try {
          // One transaction: a key that opens only some rows changes none.
          const rotated = await dataSource.transaction((em) => rotateRows((sql, parameters) => em.query(sql, parameters), cipher));
          return { keyId: cipher.keyId, rotated };
        } finally {
          await dataSource.destroy();
        }
      });
      print(result);
    });

  program
    .command('audit:verify')
    .description("seal an organization's pending audit events, then walk its hash chain; prints the first break (event id and why) and exits 1 on one")
    .requiredOption('--org <id>', 'organization id')
    .action(async (options: { org: string }) => {
      const result = await withDataSource(io, (dataSource) => verifyOrganization(dataSource, options.org));
      print(result);
      if (!result.ok) throw new AuditChainBroken(result.reason);
    });

  program
    .command('migration:run')
    .description('apply pending migrations')
    .action(async () => print({ applied: await withDataSource(io, runMigrations) }));

  program
    .command('migration:revert')
    .description('revert the last applied migration')
    .action(async () => {
      await withDataSource(io, async (dataSource) => {
        await dataSource.undoLastMigration({ transaction: 'each' });
      });
      print({ reverted: true });
    });

  program
    .command('migration:generate')
    .description('write a migration with the SQL that brings the database to the entities (review it before committing)')
    .argument('<name>', 'PascalCase name, e.g. AddSpaces')
    .action(async (name: string) => {
      const file = await withDataSource(io, async (dataSource) => {
        const { upQueries, downQueries } = await dataSource.driver.createSchemaBuilder().log();
        // Constraints, indexes and defaults live in the hand-written SQL, not on the entities: the
        // generator would drop them. Keep such statements out, listed as comments for the reviewer.
        const unmodelled = /DROP CONSTRAINT|DROP INDEX|DROP DEFAULT|ADD CONSTRAINT|CREATE INDEX|SET DEFAULT/;
        const up = upQueries.filter((q) => !unmodelled.test(q.query));
        const down = downQueries.filter((q) => !unmodelled.test(q.query)).reverse();
        const skipped = upQueries.filter((q) => unmodelled.test(q.query));
        if (up.length === 0) return null;
        const timestamp = Date.now();
        const render = (queries: { query: string }[]) => queries.map((q) => `    await db.query(${JSON.stringify(q.query)});`).join('\n');
        const note = skipped.length
          ? `\n  // Not generated (constraints and indexes are written by hand), review:\n${skipped.map((q) => `  //   ${q.query}`).join('\n')}\n`
          : '';
        const path = join(process.cwd(), 'migrations', `${timestamp}-${name.replace(/[A-Z]/g, (c, i: number) => (i ? '-' : '') + c.toLowerCase())}.ts`);
        writeFileSync(
          path,
          `import { MigrationInterface, QueryRunner } from 'typeorm';\n\nexport class ${name}${timestamp} implements MigrationInterface {\n  name = '${name}${timestamp}';\n${note}\n  async up(db: QueryRunner): Promise<void> {\n${render(up)}\n  }\n\n  async down(db: QueryRunner): Promise<void> {\n${render(down)}\n  }\n}\n`,
        );
        return path;
      });
      print({ file, note: file ? 'add the class to migrations/index.ts' : 'no changes' });
    });

  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (error: unknown) {
    if (error instanceof CommanderError) return error.exitCode; // commander printed its own message (or help)
    if (error instanceof AuditChainBroken) return 1;
    if (error instanceof ConfigError || error instanceof SecretDecryptionError) log(error.message);
    else if (error instanceof HttpException) log(`error: ${error.message}`);
    else log(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
