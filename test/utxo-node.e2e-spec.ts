import { existsSync } from 'node:fs';

import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, createBase58check } from '@scure/base';

import { addressOfScript, outputScriptOf } from '../src/core/addresses/output-script';
import { ChainMoved } from '../src/modules/follow/reading';
import {
  BitcoinRpc,
  BitcoinRpcCall,
  BitcoinRpcError,
  BitcoinRpcUnavailable,
} from '../src/modules/follow/utxo/bitcoin-rpc';
import { BlockReadPath, choosePath, readBlocks, readHeader } from '../src/modules/follow/utxo/block-reader';
import { chainInfo, networkMismatch } from '../src/modules/follow/utxo/network';
import { UtxoBlock } from '../src/modules/follow/utxo/utxo-block';
import { Litecoind, startLitecoind, Unspent, WalletAddress } from './support/litecoind';
import { freePort } from './support/pg-cluster';

/**
 * The Bitcoin family's node pieces against a real node: litecoind in regtest, the stand-in for
 * bitcoind, Bitcoin Cash Node and Dogecoin Core (test/support/litecoind.ts). No database: these are
 * the reader's parts, below the follower.
 */

const base58check = createBase58check(sha256);
const PATHS: readonly BlockReadPath[] = ['verbose-block', 'block-and-transactions'];
/** Litecoin's regtest block reward before its first halving (150 blocks), in satoshis. */
const REWARD = 5_000_000_000n;
const FEE = 12_345n;

/**
 * A client that lets a test act on the node between the block hashes and the blocks of a reading:
 * after the first batch of hashes that asks for `afterHashesOf` (a height).
 */
class PausingRpc extends BitcoinRpc {
  afterHashes: (() => Promise<void>) | undefined;
  afterHashesOf: bigint | undefined;
  /** Acts once after the first batch of this method (the last of a group's requests). */
  afterBatchOf: { method: string; act: () => Promise<void> } | undefined;

  override async batch<T>(calls: readonly BitcoinRpcCall[]): Promise<T[]> {
    const answers = await super.batch<T>(calls);
    const after = this.afterBatchOf;
    if (after !== undefined && calls[0]?.method === after.method) {
      this.afterBatchOf = undefined;
      await after.act();
    }
    const asked =
      calls[0]?.method === 'getblockhash' && calls.some((call) => call.params?.[0] === Number(this.afterHashesOf));
    if (asked && this.afterHashes) {
      const act = this.afterHashes;
      this.afterHashes = undefined;
      await act();
    }
    return answers;
  }
}

/** A client that counts the blocks each request asks the node for (`getblock` calls per batch). */
class CountingRpc extends BitcoinRpc {
  blocksAsked: number[] = [];

  override async batch<T>(calls: readonly BitcoinRpcCall[]): Promise<T[]> {
    if (calls[0]?.method === 'getblock') this.blocksAsked.push(calls.length);
    return super.batch<T>(calls);
  }
}

describe('a Bitcoin-family node (litecoind, regtest)', () => {
  let node: Litecoind;
  let rpc: BitcoinRpc;
  let legacy: WalletAddress;
  let wrapped: WalletAddress;
  let native: WalletAddress;
  let change: WalletAddress;
  let spent: Unspent[];
  let txid: string;
  let height: bigint;

  beforeAll(async () => {
    node = await startLitecoind();
    rpc = new BitcoinRpc([node.rpcUrl]);
    // 103 blocks: the first three coinbases are mature (100 confirmations), enough for a two-input spend.
    await node.mine(103);
    [legacy, wrapped, native, change] = await Promise.all([
      node.newAddress('legacy'),
      node.newAddress('p2sh-segwit'),
      node.newAddress('bech32'),
      node.newAddress('legacy'),
    ]);
    spent = (await node.unspent(100)).slice(0, 2);
    expect(spent).toHaveLength(2);
    txid = await node.send({
      inputs: spent,
      outputs: [
        { address: legacy.address, value: 150_000_000n },
        { address: wrapped.address, value: 25_000_001n },
        { address: native.address, value: 1n * 10n ** 8n + 7n },
      ],
      change: change.address,
      fee: FEE,
    });
    await node.mine(1);
    height = BigInt(await node.tip());
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
  });

  it('chooses getblock verbosity 2 on a node that has it', async () => {
    const hash = await rpc.call<string>('getblockhash', [Number(height)]);
    expect(await choosePath(rpc, hash)).toBe('verbose-block');
  });

  it('reads identical blocks both ways, each block the parent of the next', async () => {
    const verbose = await readBlocks(rpc, height - 3n, height, 'verbose-block');
    const separate = await readBlocks(rpc, height - 3n, height, 'block-and-transactions');
    expect(separate).toEqual(verbose);
    expect(verbose.map((block) => block.height)).toEqual([height - 3n, height - 2n, height - 1n, height]);
    for (let index = 1; index < verbose.length; index++) {
      expect(verbose[index]!.parentHash).toBe(verbose[index - 1]!.hash);
    }
    const best = await node.rpc<string>('getbestblockhash');
    expect(verbose[3]!.hash).toBe(best);
    const header = await node.rpc<{ time: number }>('getblockheader', best);
    expect(verbose[3]!.time).toBe(new Date(header.time * 1000).toISOString());
  });

  it.each(PATHS)(
    '%s: asks for a range in groups sized by the transactions read, and stops where the limit is reached',
    async (path) => {
      // Blocks 90..99 hold their coinbase only: one transaction each.
      const whole = await readBlocks(rpc, 90n, 99n, path);
      expect(whole.map((block) => block.transactions.length)).toEqual(Array(10).fill(1));

      const counting = new CountingRpc([node.rpcUrl]);
      // One block first (nothing tells its size before), then groups of about three transactions,
      // each at most twice the one before.
      expect(await readBlocks(counting, 90n, 99n, path, { perRequest: 3 })).toEqual(whole);
      expect(counting.blocksAsked).toEqual([1, 2, 3, 3, 1]);

      // With a limit: the first blocks only, ending with the one that reaches it.
      counting.blocksAsked = [];
      const first = await readBlocks(counting, 90n, 99n, path, { perRequest: 3, limit: 5 });
      expect(first).toEqual(whole.slice(0, 5));
      // The third group is cut to what the limit leaves, by the blocks read so far.
      expect(counting.blocksAsked).toEqual([1, 2, 2]);
      // Read on from there, the rest follows on from the block the first reading ended with.
      const rest = await readBlocks(counting, 95n, 99n, path, { perRequest: 3, limit: 5 });
      expect(rest).toEqual(whole.slice(5));
      expect(rest[0]!.parentHash).toBe(first[4]!.hash);
      // A block larger than the limit is read whole, alone: a reading holds one block at least.
      expect(await readBlocks(counting, height, height, path, { perRequest: 1, limit: 1 })).toHaveLength(1);
    },
  );

  it.each(PATHS)('%s: small blocks first do not make the next request the rest of the range', async (path) => {
    // Two blocks of their coinbase alone, then two of eight transactions (a chain of spends).
    const from = BigInt(await node.tip()) + 1n;
    await node.mine(2);
    for (let block = 0; block < 2; block++) {
      const coin = (await node.unspent(100)).find((entry) => entry.value === REWARD);
      if (coin === undefined) throw new Error('the wallet has no mature coinbase left');
      let outpoint = { txid: coin.txid, vout: coin.vout, value: coin.value };
      for (let spend = 0; spend < 7; spend++) {
        const value = outpoint.value - 100_000n;
        const txid = await node.send({
          inputs: [outpoint],
          outputs: [{ address: change.address, value }],
          fee: 100_000n,
        });
        outpoint = { txid, vout: 0, value };
      }
      await node.mine(1);
    }
    const counting = new CountingRpc([node.rpcUrl]);
    const blocks = await readBlocks(counting, from, from + 3n, path, { perRequest: 4 });
    expect(blocks.map((block) => block.transactions.length)).toEqual([1, 1, 8, 8]);
    // Sized by the average alone, the second request would have asked for the three blocks left.
    expect(counting.blocksAsked).toEqual([1, 2, 1]);
  });

  it('parses the coinbase and a two-input spend with change, exactly to the satoshi', async () => {
    const [block] = await readBlocks(rpc, height, height, 'block-and-transactions');
    const [coinbase, spend] = block!.transactions as [UtxoBlock['transactions'][0], UtxoBlock['transactions'][0]];
    expect(block!.transactions).toHaveLength(2);

    expect(coinbase.coinbase).toBe(true);
    expect(coinbase.inputs).toEqual([]);
    // The reward plus the one fee, whatever the extra (witness commitment) outputs.
    expect(coinbase.outputs.reduce((sum, output) => sum + output.value, 0n)).toBe(REWARD + FEE);

    expect(spend.txid).toBe(txid);
    expect(spend.coinbase).toBe(false);
    expect(spend.inputs).toEqual(spent.map(({ txid: spentTxid, vout }) => ({ txid: spentTxid, vout })));
    const inputTotal = spent.reduce((sum, unspent) => sum + unspent.value, 0n);
    expect(spend.outputs).toEqual([
      { n: 0, value: 150_000_000n, script: legacy.script },
      { n: 1, value: 25_000_001n, script: wrapped.script },
      { n: 2, value: 100_000_007n, script: native.script },
      { n: 3, value: inputTotal - 150_000_000n - 25_000_001n - 100_000_007n - FEE, script: change.script },
    ]);
  });

  it("maps the regtest keys' output scripts to their mainnet addresses", () => {
    // The same hash in another network's form: the regtest address decoded, then encoded for mainnet.
    const p2pkh = addressOfScript('bitcoin', legacy.script)!;
    expect(p2pkh).toMatch(/^1/);
    expect(base58check.decode(p2pkh).slice(1)).toEqual(base58check.decode(legacy.address).slice(1));
    const p2sh = addressOfScript('bitcoin', wrapped.script)!;
    expect(p2sh).toMatch(/^3/);
    expect(base58check.decode(p2sh).slice(1)).toEqual(base58check.decode(wrapped.address).slice(1));
    const segwit = addressOfScript('bitcoin', native.script)!;
    expect(segwit).toMatch(/^bc1q/);
    expect(bech32.decode(segwit as `${string}1${string}`).words).toEqual(
      bech32.decode(native.address as `${string}1${string}`).words,
    );

    expect(addressOfScript('dogecoin', legacy.script)).toMatch(/^D/);
    expect(addressOfScript('dogecoin', wrapped.script)).toMatch(/^[9A]/);
    expect(addressOfScript('bitcoincash', legacy.script)).toMatch(/^bitcoincash:q/);
    expect(addressOfScript('bitcoincash', wrapped.script)).toMatch(/^bitcoincash:p/);
    for (const chain of ['bitcoin', 'bitcoincash', 'dogecoin'] as const) {
      for (const { script } of [legacy, wrapped])
        expect(outputScriptOf(chain, addressOfScript(chain, script)!)).toBe(script);
    }
    expect(outputScriptOf('bitcoin', segwit)).toBe(native.script);
  });

  it('reads a spend of SegWit outputs (witness inputs) the same both ways', async () => {
    const to = await node.newAddress('legacy');
    const segwitSpend = await node.send({
      inputs: [
        { txid, vout: 1 },
        { txid, vout: 2 },
      ],
      outputs: [{ address: to.address, value: 125_000_008n - FEE }],
      fee: FEE,
    });
    const [hash] = await node.mine(1);
    const at = BigInt(await node.tip());
    const [verbose] = await readBlocks(rpc, at, at, 'verbose-block');
    const [separate] = await readBlocks(rpc, at, at, 'block-and-transactions');
    expect(separate).toEqual(verbose);
    expect(verbose!.hash).toBe(hash);
    expect(verbose!.transactions[1]).toEqual({
      txid: segwitSpend,
      coinbase: false,
      inputs: [
        { txid, vout: 1 },
        { txid, vout: 2 },
      ],
      outputs: [{ n: 0, value: 125_000_008n - FEE, script: to.script }],
    });
    height = at;
  });

  it('reads headers, and the tip and network from getblockchaininfo', async () => {
    expect(await chainInfo(rpc)).toEqual({ chain: 'regtest', blocks: height });
    expect(await rpc.call('getblockcount')).toBe(Number(height));
    const header = await readHeader(rpc, height);
    const [block] = await readBlocks(rpc, height, height, 'verbose-block');
    expect(header).toEqual({ number: height, hash: block!.hash, parentHash: block!.parentHash, time: block!.time });
    expect(await readHeader(rpc, height + 1n)).toBeUndefined();
    expect((await readHeader(rpc, 0n))!.parentHash).toBe('0'.repeat(64));
  });

  it('accepts the regtest node for regtest and refuses it for mainnet, saying why', async () => {
    for (const chain of ['bitcoin', 'bitcoincash', 'dogecoin'] as const) {
      expect(await networkMismatch(rpc, chain, 'regtest')).toBeUndefined();
      const reason = await networkMismatch(rpc, chain, 'mainnet');
      expect(reason).toMatch(/mainnet/);
      expect(reason).toMatch(/genesis/);
      expect(reason).toMatch(/regtest/);
      expect(reason).not.toContain(String(node.rpcPort));
      expect(reason).not.toContain(node.password);
    }
  });

  it('splits batches at maxBatch and answers in call order; an error answer names its call', async () => {
    const small = new BitcoinRpc([node.rpcUrl], { maxBatch: 7 });
    const heights = Array.from({ length: 50 }, (_, index) => index);
    const batched = await small.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    const single = await Promise.all(heights.map((h) => rpc.call<string>('getblockhash', [h])));
    expect(batched).toEqual(single);
    expect(new Set(batched).size).toBe(50);

    const failing = small.batch([
      { method: 'getblockcount' },
      { method: 'getblockhash', params: [Number(height) + 5] },
    ]);
    await expect(failing).rejects.toBeInstanceOf(BitcoinRpcError);
    await expect(failing).rejects.toMatchObject({ code: -8, method: 'getblockhash' });
  });

  it("takes an RPC error on a single call (HTTP 500 with a JSON body) as the node's answer", async () => {
    const call = rpc.call('getblockhash', [Number(height) + 1]);
    await expect(call).rejects.toBeInstanceOf(BitcoinRpcError);
    await expect(call).rejects.toMatchObject({ code: -8, method: 'getblockhash' });
    await expect(rpc.call('nosuchmethod')).rejects.toMatchObject({ code: -32601 });
  });

  it('says the node refused the credentials, never showing them', async () => {
    const wrongPassword = 'not-the-password-4711';
    const wrong = new BitcoinRpc([`http://someone:${wrongPassword}@127.0.0.1:${node.rpcPort}`], { retries: 0 });
    const error = await wrong.call('getblockcount').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BitcoinRpcUnavailable);
    const text = `${String(error)} ${(error as Error).stack ?? ''} ${JSON.stringify(error)}`;
    expect(text).toContain('the node refused the credentials');
    for (const secret of [wrongPassword, 'someone', String(node.rpcPort), '127.0.0.1'])
      expect(text).not.toContain(secret);
  });

  it('falls back to the next URL when the first one is closed, and never shows either', async () => {
    const closed = await freePort();
    const fallback = new BitcoinRpc([`http://a:secret-one@127.0.0.1:${closed}`, node.rpcUrl], {
      retries: 1,
      retryDelayMs: 10,
    });
    expect(await fallback.call<number>('getblockcount')).toBe(Number(height));
    expect(await fallback.batch<number>([{ method: 'getblockcount' }])).toEqual([Number(height)]);

    const none = new BitcoinRpc([`http://a:secret-one@127.0.0.1:${closed}`], { retries: 1, retryDelayMs: 10 });
    const error = (await none.call('getblockcount').catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(BitcoinRpcUnavailable);
    expect(error.message).toBe('no node answered getblockcount: RPC URL #1: the connection was refused');
    expect(`${error.stack ?? ''} ${JSON.stringify(error)}`).not.toMatch(/secret-one|127\.0\.0\.1/);
  });

  describe('when the chain is reorganised', () => {
    it.each(PATHS)(
      '%s: a block read in an earlier group that leaves the chain throws ChainMoved at the next group',
      async (path) => {
        await node.mine(2);
        const tip = BigInt(await node.tip());
        const pausing = new PausingRpc([node.rpcUrl]);
        // The first group is block tip − 1 alone; once it is read, the chain from it on is replaced.
        pausing.afterBatchOf = {
          method: path === 'verbose-block' ? 'getblock' : 'getrawtransaction',
          act: async () => {
            await node.invalidate(await node.rpc<string>('getblockhash', Number(tip - 1n)));
            // Paid elsewhere than the blocks they replace, or they would be those blocks again.
            await node.mine(2, change.address);
          },
        };
        await expect(readBlocks(pausing, tip - 1n, tip, path, { perRequest: 1 })).rejects.toBeInstanceOf(ChainMoved);
      },
    );
    it.each(PATHS)(
      '%s: a block that left the chain while it was read throws ChainMoved; read again, the new chain',
      async (path) => {
        const pausing = new PausingRpc([node.rpcUrl]);
        const tip = BigInt(await node.tip());
        const before = await readBlocks(pausing, tip - 1n, tip, path);
        const payTo = await node.newAddress('bech32');
        const [coin] = await node.unspent(100);
        const moved = await node.send({
          inputs: [coin!],
          outputs: [{ address: payTo.address, value: 10_000_000n }],
          change: change.address,
        });
        await node.mine(1);

        // Between the hashes and the blocks: the top block is invalidated, an empty one takes its
        // place, and the next block takes the transaction back from the mempool.
        let replaced = '';
        // Between the top block's hash and the block (which a reading asks for in its own group here).
        pausing.afterHashesOf = tip + 1n;
        pausing.afterHashes = async () => {
          const top = await node.rpc<string>('getbestblockhash');
          await node.invalidate(top);
          replaced = await node.generateBlock(change.address, []);
          await node.mine(1);
        };
        await expect(readBlocks(pausing, tip, tip + 1n, path)).rejects.toBeInstanceOf(ChainMoved);

        const after = await readBlocks(pausing, tip - 1n, tip + 2n, path);
        expect(after.slice(0, 2)).toEqual(before);
        expect(after[2]!.hash).toBe(replaced);
        expect(after[2]!.transactions.map((tx) => tx.txid)).toHaveLength(1);
        expect(after[3]!.transactions.map((tx) => tx.txid)).toContain(moved);
        expect(after[3]!.parentHash).toBe(after[2]!.hash);
        expect(after[2]!.parentHash).toBe(after[1]!.hash);
      },
    );
  });
});

describe('the litecoind harness', () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('stop ends the node and removes its data directory', async () => {
    const node = await startLitecoind();
    const pid = node.pid!;
    expect(alive(pid)).toBe(true);
    expect(existsSync(node.dataDir)).toBe(true);
    await node.stop();
    expect(alive(pid)).toBe(false);
    expect(existsSync(node.dataDir)).toBe(false);
  });

  it('says in one sentence what to install when the binary is missing', async () => {
    const before = process.env.LITECOIND;
    process.env.LITECOIND = '/nonexistent/litecoind';
    try {
      await expect(startLitecoind()).rejects.toThrow(
        "litecoind not found at /nonexistent/litecoind: install Debian's litecoind package, or set LITECOIND",
      );
    } finally {
      if (before === undefined) delete process.env.LITECOIND;
      else process.env.LITECOIND = before;
    }
  });
});
