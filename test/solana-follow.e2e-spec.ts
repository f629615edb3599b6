import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  lamports,
  type Address,
  type EncodedAccount,
  type KeyPairSigner,
} from '@solana/kit';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import { MAINNET_GENESIS_HASH } from '../src/modules/follow/solana/network';
import { SolanaNodeError, SolanaRpc } from '../src/modules/follow/solana/solana-rpc';
import { BURNED } from '../src/modules/follow/solana/solana-transaction';
import { eventually, FollowClient, HoldingRow, SyncRow, TransactionRow } from './support/follow-client';
import { FollowerProcess, killedMidCatchUp, writerFailsOver } from './support/follower-process';
import { SolanaStandIn, startSolanaStandIn, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './support/solana-rpc-stand-in';
import {
  burnChecked,
  createAccount,
  createMint,
  createTokenAccount,
  mintTo,
  sendSol,
  transfer,
  transferChecked,
} from './support/solana-tokens';
import { DATABASES, DatabaseKind, freshDatabase, newKey, startTestApp, TestApp } from './support/test-app';
import { expectAnnouncedOnce, hook, WebhookClient, WebhookReceiver } from './support/webhook-receiver';

/**
 * The Solana follower (contract §16) against real transactions: litesvm executes them (System,
 * SPL Token, Token-2022 and Associated Token programs) and a JSON-RPC stand-in puts them in
 * finalized blocks (test/support/solana-rpc-stand-in.ts). Read through the API, on both
 * databases. Every wait polls a condition.
 */

const SOL = 1_000_000_000n;
const FEE = 5000n;

function followEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return { FOLLOW_INTERVAL_MS: '100', RPC_URL_SOLANA: url, NETWORK_SOLANA: 'localnet', ...extra };
}

interface TokenRow {
  id: string;
  name: string;
  symbol: string;
  deployments: { chain: string; address: string; decimals: number }[];
}

class SolanaClient extends FollowClient {
  async sync(): Promise<SyncRow> {
    return (await this.get<SyncRow[]>('/v2/sync')).find((row) => row.chain === 'solana')!;
  }

  /** Waits until the follower has committed the node's finalized slot and has no history left to read. */
  atTip(node: SolanaStandIn): Promise<true> {
    return eventually('the follower to reach the finalized slot', async () => {
      const row = await this.sync();
      return row.status === 'synced' && row.indexed_block === String(node.finalized()) ? true : undefined;
    });
  }

  list(address: string): Promise<TransactionRow[]> {
    return this.get<TransactionRow[]>(`/v2/transactions?chain=solana&address=${address}&per_page=100`);
  }

  override holdings(address: string): Promise<HoldingRow[]> {
    return this.get<HoldingRow[]>(`/v2/token-holdings?chain=solana&address=${address}&per_page=100`);
  }

  /** Every token record, over all pages. */
  async everyToken(): Promise<TokenRow[]> {
    const tokens: TokenRow[] = [];
    for (let page = 1; ; page++) {
      const rows = await this.get<TokenRow[]>(`/v2/tokens?per_page=100&page=${page}`);
      if (rows.length === 0) return tokens;
      tokens.push(...rows);
    }
  }

  override async balance(address: string, token = '0'): Promise<string | undefined> {
    return (await this.holdings(address)).find((row) => row.token_address === token)?.balance;
  }
}

/** A loopback port nothing listens on: one a server had a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const METAPLEX = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s' as Address;

/**
 * A Metaplex metadata account for `mint`, as the Token Metadata program lays it out: a key byte (4,
 * MetadataV1), the update authority and the mint, then name (padded to 32 bytes) and symbol (padded
 * to 10) as Borsh strings, at the address derived from "metadata", the program and the mint.
 */
async function metaplexMetadata(mint: Address, name: string, symbol: string): Promise<EncodedAccount> {
  const encoder = getAddressEncoder();
  const [address] = await getProgramDerivedAddress({
    programAddress: METAPLEX,
    seeds: ['metadata', encoder.encode(METAPLEX), encoder.encode(mint)],
  });
  const padded = (text: string, size: number) => {
    const bytes = Buffer.alloc(4 + size);
    bytes.writeUInt32LE(size, 0);
    Buffer.from(text, 'utf8').copy(bytes, 4);
    return bytes;
  };
  const data = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(encoder.encode(mint)),
    Buffer.from(encoder.encode(mint)),
    padded(name, 32),
    padded(symbol, 10),
    padded('', 200),
  ]);
  return {
    address,
    data,
    executable: false,
    lamports: lamports(10_000_000n),
    programAddress: METAPLEX,
    space: BigInt(data.length),
  };
}

/**
 * A Token-2022 mint holding its own token metadata, written into litesvm as the program lays it
 * out: the 82-byte base mint (mint authority `authority`), zeros to 165 bytes, the account type (1,
 * a mint), then a TokenMetadata extension entry (type 19): update authority, mint, and name, symbol
 * and uri as u32-prefixed UTF-8, with no additional metadata. The Token-2022 program then mints it
 * like any mint.
 */
async function token2022MintWithMetadata(
  node: SolanaStandIn,
  authority: KeyPairSigner,
  name: string,
  symbol: string,
  decimals: number,
): Promise<Address> {
  const mint = (await generateKeyPairSigner()).address;
  const encoder = getAddressEncoder();
  const base = Buffer.alloc(165);
  base.writeUInt32LE(1, 0);
  Buffer.from(encoder.encode(authority.address)).copy(base, 4);
  base[44] = decimals;
  base[45] = 1;
  const text = (value: string) => {
    const bytes = Buffer.from(value, 'utf8');
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32LE(bytes.length, 0);
    return Buffer.concat([prefix, bytes]);
  };
  const metadata = Buffer.concat([
    Buffer.from(encoder.encode(authority.address)),
    Buffer.from(encoder.encode(mint)),
    text(name),
    text(symbol),
    text('https://example.invalid/ext.json'),
    Buffer.alloc(4),
  ]);
  const entry = Buffer.alloc(4);
  entry.writeUInt16LE(19, 0);
  entry.writeUInt16LE(metadata.length, 2);
  const data = Buffer.concat([base, Buffer.from([1]), entry, metadata]);
  node.svm.setAccount({
    address: mint,
    data,
    executable: false,
    lamports: lamports(node.svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: TOKEN_2022_PROGRAM,
    space: BigInt(data.length),
  });
  return mint;
}

function byId(rows: readonly TransactionRow[]): Map<string, TransactionRow> {
  return new Map(rows.map((row) => [row.id, row]));
}

/** The lamports litesvm holds for `address`: the node's truth the follower's balances must equal. */
function lamportsOf(node: SolanaStandIn, address: Address): bigint {
  return node.svm.getBalance(address) ?? 0n;
}

describe('the Solana JSON-RPC stand-in', () => {
  let node: SolanaStandIn;

  beforeAll(async () => {
    node = await startSolanaStandIn();
  });

  afterAll(async () => {
    await node?.close();
  });

  /** Every key of the documented example is in the stand-in's answer, with the same JSON type (recursively). */
  function sameShape(documented: unknown, served: unknown, path: string, problems: string[]): void {
    const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
    // A documented null stands for a value a node may also give (blockTime, rewards): only its presence is checked.
    if (documented === null) return;
    if (kind(documented) !== kind(served)) {
      problems.push(`${path}: documented ${kind(documented)}, served ${kind(served)}`);
      return;
    }
    if (Array.isArray(documented) && Array.isArray(served)) {
      if (documented.length > 0 && served.length > 0) sameShape(documented[0], served[0], `${path}[0]`, problems);
      return;
    }
    if (kind(documented) === 'object') {
      const served_ = served as Record<string, unknown>;
      for (const [key, value] of Object.entries(documented as Record<string, unknown>)) {
        if (!(key in served_)) problems.push(`${path}.${key}: missing`);
        else sameShape(value, served_[key], `${path}.${key}`, problems);
      }
    }
  }

  it('answers every method the source calls in the shapes of Solana’s documented examples', async () => {
    const payer = await generateKeyPairSigner();
    node.svm.airdrop(payer.address, lamports(10n * SOL));
    const mint = await createMint(node, payer, TOKEN_PROGRAM, 6);
    const { account } = await createTokenAccount(node, payer, payer.address, mint, TOKEN_PROGRAM);
    const { signature } = await node.send(payer, [mintTo(mint, account, payer, 5n, TOKEN_PROGRAM)]);
    const slot = node.produce();
    const call = async (method: string, params: unknown[]): Promise<unknown> => {
      const response = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return response.json();
    };
    const asked: Record<string, unknown[]> = {
      getGenesisHash: [],
      getSlot: [{ commitment: 'finalized' }],
      getBlocks: [Number(slot) - 5, Number(slot)],
      getBlocksWithLimit: [Number(slot) - 5, 3],
      getBlock: [
        Number(slot),
        { encoding: 'json', maxSupportedTransactionVersion: 0, transactionDetails: 'full', rewards: false },
      ],
      getTransaction: [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }],
      getSignaturesForAddress: [payer.address, { limit: 1 }],
      getMultipleAccounts: [[payer.address, mint], { encoding: 'base64' }],
      getTokenAccountsByOwner: [payer.address, { programId: TOKEN_PROGRAM }, { encoding: 'jsonParsed' }],
    };
    const problems: string[] = [];
    for (const [method, params] of Object.entries(asked)) {
      const documented = JSON.parse(
        readFileSync(join(__dirname, 'fixtures', 'solana', `${method}.json`), 'utf8'),
      ) as Record<string, unknown>;
      // Two quirks of the documented examples, named in test/fixtures/solana/README.md.
      if (method === 'getTransaction') delete documented.blockTime;
      if (method === 'getTokenAccountsByOwner') {
        const parsed = (
          documented as { result: { value: { account: { data: { parsed: Record<string, unknown> } } }[] } }
        ).result.value[0]!.account.data.parsed;
        delete parsed.accountType;
        const info = parsed.info as Record<string, unknown>;
        delete info.delegate;
        delete info.delegatedAmount;
      }
      sameShape(documented, await call(method, params), method, problems);
    }
    expect(problems).toEqual([]);

    // The token balances of a transaction, in the documented structure (test/fixtures/solana/README.md).
    const block = (await call('getBlock', asked.getBlock!)) as {
      result: {
        transactions: {
          transaction: { signatures: string[] };
          meta: { postTokenBalances: Record<string, unknown>[] };
        }[];
      };
    };
    const minted = block.result.transactions.find((tx) => tx.transaction.signatures[0] === signature);
    const [balance] = minted!.meta.postTokenBalances;
    expect(balance).toEqual({
      accountIndex: expect.any(Number) as unknown,
      mint,
      owner: payer.address,
      programId: TOKEN_PROGRAM,
      uiTokenAmount: { amount: '5', decimals: 6, uiAmount: 0.000005, uiAmountString: '0.000005' },
    });
  });
});

describe('SolanaRpc', () => {
  let node: SolanaStandIn;

  beforeAll(async () => {
    node = await startSolanaStandIn();
  });

  afterAll(async () => {
    await node?.close();
  });

  it('asks the next URL when one does not answer, and names none in what it throws', async () => {
    const dead = `http://user:secret-pass@127.0.0.1:${await closedPort()}/?api-key=secret-key`;
    const rpc = new SolanaRpc([dead, node.url]);
    expect(await rpc.call((client) => client.getGenesisHash())).toBe(node.genesisHash);
    const failure = await new SolanaRpc([dead])
      .call((client) => client.getGenesisHash())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('RPC URL #1: the connection was refused');
  });

  it('sends the credentials of a URL as HTTP Basic auth', async () => {
    const url = new URL(node.url);
    url.username = 'reader';
    url.password = 'p@ss';
    await new SolanaRpc([url.toString()]).call((client) => client.getGenesisHash());
    expect(node.authorizations.at(-1)).toBe(`Basic ${Buffer.from('reader:p@ss').toString('base64')}`);
  });

  it('throws the node’s own error answer at once, without asking the fallback', async () => {
    const rpc = new SolanaRpc([node.url, node.url]);
    const before = node.methods.length;
    const failure = await rpc
      .call((client) => client.getBlock(1n, { encoding: 'json', maxSupportedTransactionVersion: 0, rewards: false }))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SolanaNodeError);
    expect((failure as SolanaNodeError).code).toBe(-32007);
    expect(node.methods.length - before).toBe(1);
  });
});

describe.each(DATABASES)('following Solana from a node, on %s', (kind: DatabaseKind) => {
  let node: SolanaStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: SolanaClient;
  const keys = { alice: newKey(), bob: newKey() };
  let funder: KeyPairSigner; // nobody tracks it
  let alice: KeyPairSigner; // tracked
  let bob: KeyPairSigner; // tracked
  let carol: KeyPairSigner; // nobody tracks it
  let receiver: WebhookReceiver;

  const start = async (): Promise<void> => {
    t = await startTestApp({
      databaseUrl: db.url,
      keys,
      env: followEnv(node.url, { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_SECONDS: '1,1,1' }),
    });
    api = new SolanaClient(t);
  };

  const expectNoDrift = async (): Promise<void> => {
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  };

  beforeAll(async () => {
    node = await startSolanaStandIn();
    funder = await generateKeyPairSigner();
    alice = await generateKeyPairSigner();
    bob = await generateKeyPairSigner();
    carol = await generateKeyPairSigner();
    for (const signer of [funder, alice, bob, carol]) node.svm.airdrop(signer.address, lamports(100n * SOL));
    node.produce();
    [db, receiver] = await Promise.all([freshDatabase(kind), WebhookReceiver.start()]);
    await start();
    await api.tag('solana_wallets', [alice.address, bob.address]);
    await api.atTip(node);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await db?.drop();
    await node?.close();
  });

  it('lists solana in /v2/sync as synced at the finalized slot, with no confirmations to wait beyond finality', async () => {
    expect(await api.sync()).toMatchObject({
      status: 'synced',
      head_block: String(node.finalized()),
      indexed_block: String(node.finalized()),
      confirmations: 0,
      error: null,
    });
    // The first block is past START_BLOCK_SOLANA (0) by a whole range of empty slots: read all the same.
    expect(node.slots()[0]).toBeGreaterThan(100n);
  });

  it('records SOL transfers and createAccount lamports, past skipped slots, with exact balances', async () => {
    const before = lamportsOf(node, alice.address);
    const sent = await node.send(alice, [sendSol(alice, carol.address, 1_000_000n)]);
    const created = await createAccount(alice, 2_000_000n);
    const both = await node.send(alice, [created.instruction, sendSol(alice, bob.address, 3_000_000n)]);
    const previous = node.slots().at(-1)!;
    const slot = node.produce({ skip: 3 });
    expect(slot).toBe(previous + 4n);
    await api.atTip(node);

    const ofAlice = byId(await api.list(alice.address));
    const block = node.block(slot)!;
    expect(ofAlice.get(`solana:${sent.signature}:0`)).toMatchObject({
      chain: 'solana',
      token_address: '0',
      from_address: alice.address,
      to_address: carol.address,
      value: '1000000',
      tx_hash: sent.signature,
      block_number: String(slot),
      block_hash: block.blockhash,
      block_time: new Date(block.blockTime * 1000).toISOString(),
    });
    expect(ofAlice.get(`solana:${both.signature}:0`)).toMatchObject({
      from_address: alice.address,
      to_address: created.signer.address,
      value: '2000000',
    });
    expect(ofAlice.get(`solana:${both.signature}:1`)).toMatchObject({
      from_address: alice.address,
      to_address: bob.address,
      value: '3000000',
    });
    // The payer paid the fees: one signature, then two (the new account signs its creation).
    const expected = before - 1_000_000n - FEE - 2_000_000n - 3_000_000n - 2n * FEE;
    expect(lamportsOf(node, alice.address)).toBe(expected);
    expect(await api.balance(alice.address)).toBe(expected.toString());
    expect(await api.balance(bob.address)).toBe((100n * SOL + 3_000_000n).toString());
    await expectNoDrift();
  });

  it('records an incoming SPL transfer by the owner of the receiving token account, and the rent an inner createAccount moved', async () => {
    const mint = await createMint(node, funder, TOKEN_PROGRAM, 6);
    const ofCarol = await createTokenAccount(node, funder, carol.address, mint, TOKEN_PROGRAM);
    // Alice pays for Bob's token account: the Associated Token program moves her lamports by an inner createAccount.
    const ofBob = await createTokenAccount(node, alice, bob.address, mint, TOKEN_PROGRAM);
    await node.send(funder, [mintTo(mint, ofCarol.account, funder, 1_000_000n, TOKEN_PROGRAM)]);
    const paid = await node.send(carol, [transfer(ofCarol.account, ofBob.account, carol, 250_000n, TOKEN_PROGRAM)]);
    const slot = node.produce();
    await api.atTip(node);

    const rows = byId(await api.list(bob.address));
    expect(rows.get(`solana:${paid.signature}:0`)).toMatchObject({
      token_address: mint,
      from_address: carol.address,
      to_address: bob.address,
      value: '250000',
      block_number: String(slot),
    });
    const rent = (await api.list(alice.address)).filter((row) => row.tx_hash === ofBob.signature);
    expect(rent).toHaveLength(1);
    expect(rent[0]!.id).toMatch(new RegExp(`^solana:${ofBob.signature}:0\\.\\d+$`));
    expect(rent[0]).toMatchObject({
      token_address: '0',
      from_address: alice.address,
      to_address: ofBob.account,
      value: node.svm.minimumBalanceForRentExemption(165n).toString(),
    });
    const holding = (await api.holdings(bob.address)).find((row) => row.token_address === mint);
    expect(holding).toMatchObject({ balance: '250000', token_decimals: 6 });
    expect(await api.balance(alice.address)).toBe(lamportsOf(node, alice.address).toString());
    await expectNoDrift();
  });

  it('records Token-2022 mints, transfers and burns (mint from 0, burn to the zero key), with balances per mint', async () => {
    const mint = await createMint(node, funder, TOKEN_2022_PROGRAM, 2);
    const ofAlice = await createTokenAccount(node, funder, alice.address, mint, TOKEN_2022_PROGRAM);
    const ofBob = await createTokenAccount(node, funder, bob.address, mint, TOKEN_2022_PROGRAM);
    const minted = await node.send(funder, [mintTo(mint, ofAlice.account, funder, 10_000n, TOKEN_2022_PROGRAM)]);
    const moved = await node.send(alice, [
      transferChecked(ofAlice.account, mint, ofBob.account, alice, 3_000n, 2, TOKEN_2022_PROGRAM),
      burnChecked(ofAlice.account, mint, alice, 1_000n, 2, TOKEN_2022_PROGRAM),
    ]);
    node.produce();
    await api.atTip(node);

    const rows = byId(await api.list(alice.address));
    expect(rows.get(`solana:${minted.signature}:0`)).toMatchObject({
      token_address: mint,
      from_address: '0',
      to_address: alice.address,
      value: '10000',
    });
    expect(rows.get(`solana:${moved.signature}:0`)).toMatchObject({
      token_address: mint,
      from_address: alice.address,
      to_address: bob.address,
      value: '3000',
    });
    expect(rows.get(`solana:${moved.signature}:1`)).toMatchObject({
      token_address: mint,
      from_address: alice.address,
      to_address: BURNED,
      value: '1000',
    });
    expect(await api.balance(alice.address, mint)).toBe('6000');
    expect(await api.balance(bob.address, mint)).toBe('3000');
    expect((await api.holdings(bob.address)).find((row) => row.token_address === mint)).toMatchObject({
      token_decimals: 2,
    });
    await expectNoDrift();
  });

  it('discovers a mint as solana-<mint> with its decimals, and names it from Metaplex metadata where it has some', async () => {
    const named = await createMint(node, funder, TOKEN_PROGRAM, 4);
    const unnamed = await createMint(node, funder, TOKEN_2022_PROGRAM, 0);
    node.svm.setAccount(await metaplexMetadata(named, 'Chaintags Test Coin', 'CTC'));
    const ofNamed = await createTokenAccount(node, funder, alice.address, named, TOKEN_PROGRAM);
    const ofUnnamed = await createTokenAccount(node, funder, alice.address, unnamed, TOKEN_2022_PROGRAM);
    await node.send(funder, [
      mintTo(named, ofNamed.account, funder, 12n, TOKEN_PROGRAM),
      mintTo(unnamed, ofUnnamed.account, funder, 3n, TOKEN_2022_PROGRAM),
    ]);
    node.produce();
    await api.atTip(node);

    const holdings = await api.holdings(alice.address);
    expect(holdings.find((row) => row.token_address === named)).toMatchObject({
      balance: '12',
      token_name: 'Chaintags Test Coin',
      token_symbol: 'CTC',
      token_decimals: 4,
    });
    expect(holdings.find((row) => row.token_address === unnamed)).toMatchObject({
      balance: '3',
      token_name: unnamed,
      token_symbol: 'UNKNOWN',
      token_decimals: 0,
    });
    const tokens = await api.everyToken();
    expect(tokens.find((token) => token.deployments.some((deployment) => deployment.address === named))).toMatchObject({
      id: `solana-${named.toLowerCase()}`,
      deployments: [{ chain: 'solana', address: named, decimals: 4 }],
    });
    await expectNoDrift();
  });

  it('names a Token-2022 mint from its metadata extension', async () => {
    const mint = await token2022MintWithMetadata(node, funder, 'Extension Coin', 'EXT', 3);
    const ofAlice = await createTokenAccount(node, funder, alice.address, mint, TOKEN_2022_PROGRAM);
    const minted = await node.send(funder, [mintTo(mint, ofAlice.account, funder, 42n, TOKEN_2022_PROGRAM)]);
    expect(minted.failed).toBe(false);
    node.produce();
    await api.atTip(node);
    expect((await api.holdings(alice.address)).find((row) => row.token_address === mint)).toMatchObject({
      balance: '42',
      token_name: 'Extension Coin',
      token_symbol: 'EXT',
      token_decimals: 3,
    });
    await expectNoDrift();
  });

  it('reads no slot past the finalized one: a block is recorded once it is finalized', async () => {
    const reached = node.finalized();
    const paid = await node.send(funder, [sendSol(funder, bob.address, 123n)]);
    const slot = node.produce({ finalize: false });
    node.produce({ skip: 1, finalize: false });
    // The follower keeps asking; nothing past the finalized slot is listed, read or recorded.
    const asked = node.methods.length;
    await eventually('the follower to ask again', () =>
      Promise.resolve(
        node.methods.slice(asked).filter((method) => method === 'getSlot').length >= 2 ? true : undefined,
      ),
    );
    expect(await api.sync()).toMatchObject({ indexed_block: String(reached), head_block: String(reached) });
    expect((await api.list(bob.address)).filter((row) => row.tx_hash === paid.signature)).toEqual([]);

    node.finalize(slot);
    await api.atTip(node);
    expect(byId(await api.list(bob.address)).get(`solana:${paid.signature}:0`)).toMatchObject({
      block_number: String(slot),
      value: '123',
    });
    node.finalize();
    await api.atTip(node);
    await expectNoDrift();
  });

  it('records nothing of a failed transaction but its fee on the payer’s balance', async () => {
    const before = lamportsOf(node, alice.address);
    const failed = await node.send(alice, [sendSol(alice, carol.address, 1_000n * SOL)]);
    expect(failed.failed).toBe(true);
    const slot = node.produce({ skip: 2 });
    expect(node.block(slot)!.transactions.map((tx) => tx.signature)).toEqual([failed.signature]);
    await api.atTip(node);
    expect((await api.list(alice.address)).filter((row) => row.tx_hash === failed.signature)).toEqual([]);
    expect(await api.balance(alice.address)).toBe((before - FEE).toString());
    await expectNoDrift();
  });

  it('takes in an address tracked later: its balances at once and its history from the backfill', async () => {
    const dave = await generateKeyPairSigner();
    const mint = await createMint(node, funder, TOKEN_PROGRAM, 9);
    const funded = await node.send(funder, [sendSol(funder, dave.address, 5n * SOL)]);
    node.produce();
    const ofDave = await createTokenAccount(node, funder, dave.address, mint, TOKEN_PROGRAM);
    const ofCarol = await createTokenAccount(node, funder, carol.address, mint, TOKEN_PROGRAM);
    const minted = await node.send(funder, [mintTo(mint, ofDave.account, funder, 700n, TOKEN_PROGRAM)]);
    node.produce({ skip: 1 });
    const spent = await node.send(dave, [
      sendSol(dave, carol.address, SOL),
      transfer(ofDave.account, ofCarol.account, dave, 200n, TOKEN_PROGRAM),
    ]);
    node.produce();
    await api.atTip(node);

    await api.tag('late_wallets', [dave.address]);
    const balance = await eventually('the late address taken in', () => api.balance(dave.address));
    expect(balance).toBe(lamportsOf(node, dave.address).toString());
    await api.atTip(node);
    const rows = byId(await api.list(dave.address));
    expect([...rows.keys()].sort()).toEqual(
      [
        `solana:${funded.signature}:0`,
        `solana:${minted.signature}:0`,
        `solana:${spent.signature}:0`,
        `solana:${spent.signature}:1`,
      ].sort(),
    );
    expect(rows.get(`solana:${minted.signature}:0`)).toMatchObject({
      from_address: '0',
      to_address: dave.address,
      value: '700',
    });
    expect(rows.get(`solana:${spent.signature}:1`)).toMatchObject({
      token_address: mint,
      from_address: dave.address,
      to_address: carol.address,
      value: '200',
    });
    expect(await api.balance(dave.address, mint)).toBe('500');
    expect((await api.holdings(dave.address)).find((row) => row.token_address === mint)?.token_decimals).toBe(9);

    // Followed block by block from then on.
    const after = await node.send(funder, [sendSol(funder, dave.address, 7n)]);
    node.produce();
    await api.atTip(node);
    expect(byId(await api.list(dave.address)).get(`solana:${after.signature}:0`)).toMatchObject({ value: '7' });
    expect(await api.balance(dave.address)).toBe(lamportsOf(node, dave.address).toString());
    await expectNoDrift();
  });

  it('resumes after a restart with no gap and no duplicate', async () => {
    await t.close();
    const paid = await node.send(funder, [sendSol(funder, alice.address, 11n)]);
    node.produce({ skip: 4 });
    node.produce();
    await start();
    await api.atTip(node);
    const rows = await api.list(alice.address);
    expect(rows.filter((row) => row.id === `solana:${paid.signature}:0`)).toHaveLength(1);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(await api.balance(alice.address)).toBe(lamportsOf(node, alice.address).toString());
    await expectNoDrift();
  });

  it('announces each live transfer of tagged wallets to a webhook once, as /v2/transactions shows it, and no history a backfill finds', async () => {
    // The later tag exists before the webhook names it; erin joins it once the webhook listens.
    await api.tag('solana_later', [(await generateKeyPairSigner()).address]);
    const webhooks = new WebhookClient(t, t.keys.alice);
    const { id: webhook } = await hook(webhooks, receiver, '/solana', {
      tags: ['solana_wallets', 'solana_later'],
      chains: ['solana'],
    });
    const erin = await generateKeyPairSigner();
    const between = await node.send(alice, [sendSol(alice, bob.address, 4_321n)]);
    const earlier = await node.send(funder, [sendSol(funder, erin.address, 2n * SOL)]);
    node.produce();
    await api.atTip(node);
    await api.tag('solana_later', [erin.address]);
    await eventually('the backfill of erin', async () =>
      byId(await api.list(erin.address)).has(`solana:${earlier.signature}:0`) && (await api.sync()).status === 'synced'
        ? true
        : undefined,
    );
    const live = await node.send(funder, [sendSol(funder, erin.address, 77n)]);
    node.produce();
    await api.atTip(node);

    const shown = [
      ...(await api.list(bob.address)).filter((row) => row.tx_hash === between.signature),
      ...(await api.list(erin.address)).filter((row) => row.tx_hash === live.signature),
    ];
    expect(shown.map((row) => row.id)).toEqual([`solana:${between.signature}:0`, `solana:${live.signature}:0`]);
    const expected = [
      { transaction: shown[0]!, tags: ['solana_wallets'] },
      { transaction: shown[1]!, tags: ['solana_later'] },
    ];
    await expectAnnouncedOnce(webhooks, receiver, { id: webhook, path: '/solana' }, expected);
  });
});

describe.each(DATABASES)('a Solana follower process killed mid-catch-up, on %s', (kind: DatabaseKind) => {
  let node: SolanaStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    node = await startSolanaStandIn();
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await node?.close();
  });

  it('resumes where it committed after SIGKILL: every transfer once, the kept stats exact', async () => {
    const api = new SolanaClient(t);
    const funder = await generateKeyPairSigner();
    const miner = await generateKeyPairSigner();
    node.svm.airdrop(funder.address, lamports(100n * SOL));
    await api.tag('killed', [miner.address]);
    const signatures: string[] = [];
    for (let index = 0; index < 250; index++) {
      // At least the rent-exempt minimum on the first: an account left below it fails the transaction.
      const paid = await node.send(funder, [sendSol(funder, miner.address, 1_000_000n + BigInt(index))]);
      expect(paid.failed).toBe(false);
      signatures.push(paid.signature);
      node.produce({ skip: index % 3 });
    }
    await killedMidCatchUp({
      databaseUrl: db.url,
      // The killed process gives nothing up: the survivor resumes once its lease lapses (2 s).
      env: {
        RPC_URL_SOLANA: node.url,
        NETWORK_SOLANA: 'localnet',
        FOLLOW_INTERVAL_MS: '50',
        FOLLOW_LEASE_SECONDS: '2',
      },
      workers,
      indexed: async () => (await api.sync()).indexed_block,
      head: () => node.finalized(),
      slow: (delayMs) => node.slowDown(delayMs),
      delayMs: 30,
    });
    const rows = await api.everyTransaction(`chain=solana&address=${miner.address}`);
    expect(rows.map((row) => row.tx_hash).sort()).toEqual([...signatures].sort());
    expect(await api.balance(miner.address)).toBe(lamportsOf(node, miner.address).toString());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe('two Solana follower processes on one PostgreSQL', () => {
  let node: SolanaStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    node = await startSolanaStandIn();
    db = await freshDatabase('postgres');
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await node?.close();
  });

  it('has one writer, and the standby takes over when the writer dies; every signature recorded once', async () => {
    const api = new SolanaClient(t);
    const funder = await generateKeyPairSigner();
    const watched = await generateKeyPairSigner();
    node.svm.airdrop(funder.address, lamports(100n * SOL));
    node.produce();
    await api.tag('two_workers', [watched.address]);
    const env = {
      RPC_URL_SOLANA: node.url,
      NETWORK_SOLANA: 'localnet',
      FOLLOW_INTERVAL_MS: '100',
      FOLLOW_LEASE_SECONDS: '2',
    };
    let sent = 0n;
    const pay = async (): Promise<string> => {
      // At least the rent-exempt minimum on the first: an account left below it fails the transaction.
      const paid = await node.send(funder, [sendSol(funder, watched.address, 1_000_000n + sent++)]);
      expect(paid.failed).toBe(false);
      node.produce();
      return paid.signature;
    };
    const recorded = async (signature: string) =>
      (await api.list(watched.address)).some((row) => row.tx_hash === signature);

    const paid = await writerFailsOver({
      databaseUrl: db.url,
      chain: 'solana',
      env,
      workers,
      pay,
      recorded,
      beforeKill: 2,
      afterKill: 2,
    });
    const rows = await api.everyTransaction(`chain=solana&address=${watched.address}`);
    expect(rows.map((row) => row.tx_hash).sort()).toEqual([...paid].sort());
    expect(rows.map((row) => row.id).sort()).toEqual(paid.map((signature) => `solana:${signature}:0`).sort());
    expect(await api.balance(watched.address)).toBe(lamportsOf(node, watched.address).toString());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a Solana node of another network, on %s', (kind: DatabaseKind) => {
  let node: SolanaStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    node = await startSolanaStandIn();
    db = await freshDatabase(kind);
    const withKey = new URL(node.url);
    withKey.searchParams.set('api-key', 'secret-key-1234');
    t = await startTestApp({ databaseUrl: db.url, env: followEnv(withKey.toString(), { NETWORK_SOLANA: 'mainnet' }) });
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await node?.close();
  });

  it('writes nothing when the genesis hash is not mainnet-beta’s and says why in /v2/sync, without the URL', async () => {
    const api = new SolanaClient(t);
    const funder = await generateKeyPairSigner();
    const watched = await generateKeyPairSigner();
    node.svm.airdrop(funder.address, lamports(10n * SOL));
    await api.tag('wrong_network', [watched.address]);
    await node.send(funder, [sendSol(funder, watched.address, 1_000n)]);
    node.produce();
    const row = await eventually('the error', async () => {
      const found = await api.sync();
      return found.status === 'error' ? found : undefined;
    });
    expect(row.error).toMatch(/NETWORK_SOLANA is mainnet, but the node's genesis hash .* is not mainnet-beta's/);
    expect(row.error).toContain(node.genesisHash);
    expect(row.error).not.toContain('secret-key-1234');
    expect(row.indexed_block).toBeNull();
    expect(await api.list(watched.address)).toEqual([]);
    expect(node.methods).not.toContain('getBlock');
  });

  it('writes nothing on localnet for a node whose genesis hash is mainnet-beta’s, and says why in /v2/sync', async () => {
    // A database of its own: the process above holds the chain's lease on the first one.
    const mainnet = await startSolanaStandIn({ genesisHash: MAINNET_GENESIS_HASH });
    const own = await freshDatabase(kind);
    const other = await startTestApp({ databaseUrl: own.url, env: followEnv(mainnet.url) });
    try {
      const api = new SolanaClient(other);
      const funder = await generateKeyPairSigner();
      const watched = await generateKeyPairSigner();
      mainnet.svm.airdrop(funder.address, lamports(10n * SOL));
      await api.tag('not_local', [watched.address]);
      await mainnet.send(funder, [sendSol(funder, watched.address, 1_000n)]);
      mainnet.produce();
      const row = await eventually('the error', async () => {
        const found = await api.sync();
        return found.status === 'error' ? found : undefined;
      });
      expect(row.error).toContain(
        `NETWORK_SOLANA is localnet, but the node's genesis hash (${MAINNET_GENESIS_HASH}) is mainnet-beta's`,
      );
      expect(row.indexed_block).toBeNull();
      expect(await api.list(watched.address)).toEqual([]);
      expect(mainnet.methods).not.toContain('getBlock');
    } finally {
      await other.close();
      await own.drop();
      await mainnet.close();
    }
  });

  it('follows a node whose genesis hash is mainnet-beta’s', async () => {
    // A database of its own: the process above holds the chain's lease on the first one.
    const mainnet = await startSolanaStandIn({ genesisHash: MAINNET_GENESIS_HASH });
    const own = await freshDatabase(kind);
    const other = await startTestApp({
      databaseUrl: own.url,
      env: followEnv(mainnet.url, { NETWORK_SOLANA: 'mainnet' }),
    });
    try {
      const api = new SolanaClient(other);
      await api.atTip(mainnet);
      expect(await api.sync()).toMatchObject({ status: 'synced', error: null });
    } finally {
      await other.close();
      await own.drop();
      await mainnet.close();
    }
  });
});
