import { Client } from 'pg';
import { CHAINS, type ChainId } from '../src/core/chains/chain-registry';
import { Db } from '../src/database/db.service';
import { sql } from '../src/database/sql';
import { chainLine } from './support/factories';
import { importLines } from './support/fixtures';
import { DATABASES, freshDatabase, startTestApp, TestApp } from './support/test-app';

interface ChainAnswer {
  chain: string;
  chainId: number;
  name: string;
  icon_url: string;
  explorers: unknown[];
}

/** `GET /v2/chains` as the registry describes the chains, display data overridden where given. */
function registryAnswer(overrides: Partial<Record<ChainId, Record<string, unknown>>> = {}): ChainAnswer[] {
  return CHAINS.map((chain) => {
    const line = overrides[chain.id];
    return {
      chain: chain.id,
      chainId: chain.chainId,
      name: (line?.name as string | undefined) ?? chain.name,
      icon_url: (line?.icon_url as string | undefined) ?? chain.iconUrl,
      explorers: (line?.explorers as unknown[] | undefined) ?? [...chain.explorers],
    };
  });
}

describe.each(DATABASES)('reference data seeding on %s', (kind) => {
  let database: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeEach(async () => {
    database = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: database.url });
  });

  afterEach(async () => {
    await t.close();
    await database.drop();
  });

  const db = () => t.app.get(Db);
  const get = (path: string) => t.http().get(path).set('X-API-Key', t.keys.alice).expect(200);

  async function restart(): Promise<void> {
    await t.close();
    t = await startTestApp({ databaseUrl: database.url, keys: t.keys });
  }

  /** Serialised exactly as the API writes it, so that key order and every byte are compared. */
  async function expectChains(expected: ChainAnswer[]): Promise<void> {
    expect((await get('/v2/chains')).text).toBe(JSON.stringify(expected));
  }

  it('serves the registry’s chains, in its order, on a fresh database', async () => {
    await expectChains(registryAnswer());
  });

  if (kind === 'postgres') {
    it('writes nothing to the reference tables on a start when they are up to date', async () => {
      // Another session holds the tables against writes (reads pass): a start that seeded them
      // would queue behind it, as replicas starting together queued on each other's rows.
      const holder = new Client({ connectionString: database.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE chains, tokens, token_deployments IN EXCLUSIVE MODE');
        await t.close();
        const starting = startTestApp({ databaseUrl: database.url, keys: t.keys });
        const blocked = new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 10_000).unref());
        const outcome = await Promise.race([starting.then(() => 'started' as const), blocked]);
        await holder.query('ROLLBACK');
        t = await starting;
        expect(outcome).toBe('started');
      } finally {
        await holder.end();
      }
      await expectChains(registryAnswer());
    }, 60_000);
  }

  it('refuses two chains at one position', async () => {
    await expect(db().execute(sql`UPDATE chains SET position = 0 WHERE chain = 'ethereum'`)).rejects.toThrow();
  });

  it('corrects stored positions, chain ids and display data, and adds a missing chain, on the next start', async () => {
    // A database seeded before solana was inserted in the middle of the list, with every other
    // chain in another order, stale display data for one and a wrong EIP-155 id for another.
    await db().transaction(async (tx) => {
      await tx.execute(sql`DELETE FROM token_deployments WHERE chain = 'solana'`);
      await tx.execute(sql`DELETE FROM chains WHERE chain = 'solana'`);
      await tx.execute(sql`UPDATE chains SET position = 100 - position`);
      await tx.execute(
        sql`UPDATE chains SET name = 'Ether', icon_url = 'https://example.com/old.png', explorers = '[]' WHERE chain = 'ethereum'`,
      );
      await tx.execute(sql`UPDATE chains SET chain_id = 5 WHERE chain = 'base'`);
    });

    await restart();
    await expectChains(registryAnswer());
    const tokens = (await get('/v2/tokens?per_page=100')).body as { id: string; deployments: { chain: string }[] }[];
    const solanaDeployments = tokens.flatMap((token) =>
      token.deployments.filter((d) => d.chain === 'solana').map(() => token.id),
    );
    expect(solanaDeployments.sort()).toEqual(['solana', 'tether', 'usd-coin']);

    await restart();
    await expectChains(registryAnswer());
  }, 60_000);

  it('keeps display data imported through a chain line across restarts, while its position follows the registry', async () => {
    const imported = chainLine('ton', 'imported-ton');
    await importLines(t, [imported]);
    await expectChains(registryAnswer({ ton: imported }));

    await db().transaction(async (tx) => {
      await tx.execute(sql`UPDATE chains SET position = 100 - position`);
      await tx.execute(sql`UPDATE chains SET name = 'Stale' WHERE chain = 'sui'`);
    });
    await restart();
    await expectChains(registryAnswer({ ton: imported }));

    // A later import replaces the imported display data again.
    const again = chainLine('ton', 'imported-again');
    await importLines(t, [again]);
    await restart();
    await expectChains(registryAnswer({ ton: again }));
  }, 60_000);

  it('settles chains seeded before chaintags recorded where display data came from', async () => {
    // Such a row's display data differs from the registry only if an import changed it.
    await db().execute(sql`UPDATE chains SET display_source = NULL`);
    await db().execute(sql`UPDATE chains SET name = 'Imported Sui' WHERE chain = 'sui'`);

    await restart();
    const sources = await db().query<{ chain: string; display_source: string }>(
      sql`SELECT chain, display_source FROM chains ORDER BY position`,
    );
    expect(sources).toEqual(
      CHAINS.map((chain) => ({ chain: chain.id, display_source: chain.id === 'sui' ? 'import' : 'registry' })),
    );
    await expectChains(registryAnswer({ sui: { name: 'Imported Sui' } }));

    // Settled once: a chain whose display data is the registry's is corrected from then on.
    await db().execute(sql`UPDATE chains SET name = 'Stale' WHERE chain = 'aptos'`);
    await restart();
    await expectChains(registryAnswer({ sui: { name: 'Imported Sui' } }));
  }, 60_000);
});
