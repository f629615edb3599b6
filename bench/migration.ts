/**
 * How long migration 1763700000030 (the kept aggregates) takes on an existing database.
 *
 *   node -r @swc-node/register bench/migration.ts [--transactions N] [--addresses N] [--holdings N] [--tags N] [--seed S]
 *
 * Generates (or reuses) the benchmark's dataset, loads it into a throwaway PostgreSQL 15 cluster
 * with COPY and the tags with plain INSERTs (canonical addresses), puts the database back to the
 * state before the migration, and times `chaintags keys list`, which applies it (its progress
 * lines go to stderr). Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { Client } from 'pg';
import { parseAddress } from '../src/core/addresses';
import { startCluster, stopCluster } from '../test/support/pg-cluster';
import { ensureDataset } from './dataset/build';
import { COPY_COLUMNS, COPY_TABLES } from './dataset/meta';
import { addDatasetOptions, datasetOptionsOf, DatasetOptions, defaultDatasetDir } from './dataset/options';
import { parseCommandLine } from './lib/options';
import { ROOT } from './lib/processes';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

function log(line: string): void {
  process.stderr.write(`[migration ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** The dataset from the command line; undefined after `--help` or a refused option. */
function readOptions(argv: readonly string[]): DatasetOptions | undefined {
  const command = addDatasetOptions(
    new Command('node -r @swc-node/register bench/migration.ts').description(
      'Times migration 1763700000030 (the kept aggregates) on a database loaded with the dataset; prints one JSON line.',
    ),
  );
  const options = parseCommandLine<DatasetOptions>(command, argv);
  return options === undefined ? undefined : datasetOptionsOf(options);
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(code) : reject(new Error(`${command} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  if (options === undefined) return;
  const meta = ensureDataset(options, defaultDatasetDir(options), log);
  const cluster = await startCluster();
  try {
    const admin = new Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE migration');
    await admin.end();
    const url = cluster.url.replace(/\/postgres$/, '/migration');
    const cli = ['-r', '@swc-node/register', 'src/cli/main.ts', 'keys', 'list'];
    const env = { DATABASE_URL: url, API_KEYS: '', LOG_LEVEL: 'silent' };
    log('migrating an empty database');
    await run(process.execPath, cli, env);

    log(`COPY of ${meta.lines.total} rows`);
    const script = join(tmpdir(), `chaintags-migration-${process.pid}.sql`);
    writeFileSync(
      script,
      ['\\set ON_ERROR_STOP on', 'BEGIN;']
        .concat(
          COPY_TABLES.map(
            (table) =>
              `\\copy ${table} (${COPY_COLUMNS[table].join(', ')}) FROM '${meta.files.copy[table]}' WITH (FORMAT csv)`,
          ),
        )
        .concat(['COMMIT;', ''])
        .join('\n'),
    );
    const psql = existsSync(join(PG_BIN, 'psql')) ? join(PG_BIN, 'psql') : 'psql';
    await run(psql, [
      '-X',
      '-q',
      '-h',
      '127.0.0.1',
      '-p',
      String(cluster.port),
      '-U',
      'postgres',
      '-d',
      'migration',
      '-f',
      script,
    ]);
    rmSync(script, { force: true });

    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      log(`${meta.tags.length} tags`);
      const now = new Date().toISOString();
      const accounts = new Map<string, number>();
      let memberships = 0;
      for (const tag of meta.tags) {
        if (!accounts.has(tag.account)) {
          const created = await db.query('INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING id', [
            tag.account,
            now,
          ]);
          accounts.set(tag.account, Number((created.rows[0] as { id: string }).id));
        }
        const accountId = accounts.get(tag.account)!;
        const addresses = [
          ...new Set(
            tag.addresses.map((input) => {
              const parsed = parseAddress(input);
              if (!parsed.ok) throw new Error(`not an address: ${input}`);
              return parsed.address.canonical;
            }),
          ),
        ];
        const created = await db.query(
          'INSERT INTO tags (account_id, name, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING id',
          [accountId, tag.name, now],
        );
        const tagId = Number((created.rows[0] as { id: string }).id);
        await db.query(
          `INSERT INTO tracked_addresses (account_id, address, created_at)
           SELECT $1, a, $3 FROM unnest($2::text[]) a ON CONFLICT DO NOTHING`,
          [accountId, addresses, now],
        );
        await db.query(
          `INSERT INTO address_tags (tag_id, account_id, address, created_at) SELECT $1, $2, a, $4 FROM unnest($3::text[]) a`,
          [tagId, accountId, addresses, now],
        );
        memberships += addresses.length;
      }
      log('back to the state before migration 1763700000030, then VACUUM ANALYZE');
      for (const table of ['token_holders', 'tag_balances', 'tag_stats', 'address_stats']) {
        await db.query(`DROP TABLE ${table}`);
      }
      await db.query('DROP INDEX address_tags_by_member');
      await db.query(`INSERT INTO revisions (name, value) VALUES ('data', 0)`);
      await db.query(`DELETE FROM migrations WHERE name = 'KeptAggregates1763700000030'`);
      await db.query('VACUUM ANALYZE');

      log('applying migration 1763700000030');
      const started = performance.now();
      await run(process.execPath, cli, env);
      const seconds = (performance.now() - started) / 1000;
      const counted = await db.query(
        `SELECT (SELECT COUNT(*) FROM address_stats) AS address_stats, (SELECT COUNT(*) FROM tag_balances) AS tag_balances`,
      );
      process.stdout.write(
        `${JSON.stringify({ dataset: meta.options, memberships, seconds: Math.round(seconds * 10) / 10, rows: counted.rows[0] as unknown })}\n`,
      );
    } finally {
      await db.end();
    }
  } finally {
    stopCluster(cluster);
  }
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
