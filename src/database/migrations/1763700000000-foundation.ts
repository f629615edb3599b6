import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, Dialect } from '../dialect';

export function dialectOf(runner: QueryRunner): Dialect {
  return runner.connection.options.type === 'postgres' ? 'postgres' : 'sqlite';
}

/** Reference data (chains, tokens and where they are deployed) and the accounts that own API keys. */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE chains (
      chain ${t.text} PRIMARY KEY,
      position ${t.integer} NOT NULL,
      chain_id ${t.integer} NOT NULL,
      name ${t.text} NOT NULL,
      icon_url ${t.text} NOT NULL,
      native_decimals ${t.integer} NOT NULL,
      explorers ${t.text} NOT NULL
    )`);
    await runner.query(`CREATE TABLE tokens (
      id ${t.text} PRIMARY KEY,
      name ${t.text} NOT NULL,
      symbol ${t.text} NOT NULL,
      icon_url ${t.text} NOT NULL
    )`);
    await runner.query(`CREATE TABLE token_deployments (
      chain ${t.text} NOT NULL REFERENCES chains (chain),
      address ${t.text} NOT NULL,
      token_id ${t.text} NOT NULL REFERENCES tokens (id),
      decimals ${t.integer} NOT NULL,
      PRIMARY KEY (chain, address)
    )`);
    await runner.query(`CREATE INDEX token_deployments_token ON token_deployments (token_id, chain, address)`);
    await runner.query(`CREATE TABLE accounts (
      id ${t.serialKey},
      name ${t.text} NOT NULL UNIQUE,
      created_at ${t.timestamp} NOT NULL
    )`);
    await runner.query(`CREATE TABLE api_keys (
      id ${t.serialKey},
      account_id ${t.bigint} NOT NULL REFERENCES accounts (id),
      prefix ${t.text} NOT NULL,
      key_hash ${t.text} NOT NULL UNIQUE,
      created_at ${t.timestamp} NOT NULL,
      revoked_at ${t.timestamp}
    )`);
    await runner.query(`CREATE INDEX api_keys_prefix ON api_keys (prefix)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'accounts', 'token_deployments', 'tokens', 'chains']) {
      await runner.query(`DROP TABLE ${table}`);
    }
  }
}
