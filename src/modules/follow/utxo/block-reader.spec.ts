import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { failure, startStandIn, StandIn } from '../../../../test/support/bitcoin-node-stand-in';
import { BitcoinRpc, parseNodeJson } from './bitcoin-rpc';
import { choosePath, readBlocks, readHeader } from './block-reader';

/**
 * The reader on a node's HTTP face that answers as Dogecoin Core 1.14 does, from the documented
 * answers in test/fixtures/utxo: `getblock` takes a boolean only, `getrawtransaction` takes no block
 * hash. Both read paths on a real node (litecoind): test/utxo-node.e2e-spec.ts.
 */

const FIXTURES = join(__dirname, '../../../../test/fixtures/utxo');
const text = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const BLOCK = JSON.parse(text('dogecoin-1.14-getblock-true.json')) as { hash: string; height: number; tx: string[] };
/**
 * The transactions' answers as the node prints them: amounts as JSON numbers with 8 decimals (one
 * is above 2^53 satoshis, so it must reach the client as text, not through a double).
 */
const TRANSACTIONS: string[] = (parseNodeJson(text('dogecoin-1.14-getrawtransaction-true.json')) as unknown[]).map(
  (transaction) => JSON.stringify(transaction).replace(/"value":"([0-9.]+)"/g, '"value":$1'),
);

type Call = { id: number; method: string; params: unknown[] };

/** One call as Dogecoin Core 1.14 answers it: an answer's text, or an error object. */
function dogecoin(call: Call, verbose2: 'error' | 'txids'): string {
  const ok = (result: string) => `{"result":${result},"error":null,"id":${call.id}}`;
  const error = (code: number, message: string) => JSON.stringify(failure(call, code, message));
  switch (call.method) {
    case 'getblockhash':
      return call.params[0] === BLOCK.height ? ok(JSON.stringify(BLOCK.hash)) : error(-8, 'Block height out of range');
    case 'getblock':
      if (call.params[1] === 2 && verbose2 === 'error') return error(-1, 'JSON value is not a boolean as expected');
      return ok(text('dogecoin-1.14-getblock-true.json'));
    case 'getrawtransaction': {
      if (call.params.length > 2) return error(-1, 'getrawtransaction "txid" ( verbose )\n\nNOTE: By default …');
      const index = BLOCK.tx.indexOf(call.params[0] as string);
      return index === -1 ? error(-5, 'No such mempool or blockchain transaction') : ok(TRANSACTIONS[index]!);
    }
    default:
      return error(-32601, 'Method not found');
  }
}

describe('reading blocks from a node without getblock verbosity 2 (Dogecoin Core 1.14)', () => {
  let node: StandIn;
  let verbose2: 'error' | 'txids';

  beforeAll(async () => {
    node = await startStandIn((body) => ({
      status: 200,
      body: Array.isArray(body)
        ? `[${(body as Call[]).map((call) => dogecoin(call, verbose2)).join(',')}]`
        : dogecoin(body as Call, verbose2),
    }));
  });
  afterAll(() => node.close());

  it.each(['error', 'txids'] as const)(
    'falls back to getblock + getrawtransaction when getblock(hash, 2) answers with %s',
    async (behaviour) => {
      verbose2 = behaviour;
      const rpc = new BitcoinRpc([node.url]);
      expect(await choosePath(rpc, BLOCK.hash)).toBe('block-and-transactions');
    },
  );

  it('reads the block with its transactions, learning once that the node takes no block hash argument', async () => {
    const rpc = new BitcoinRpc([node.url]);
    const before = node.requests.length;
    const [block] = await readBlocks(rpc, BigInt(BLOCK.height), BigInt(BLOCK.height), 'block-and-transactions');
    expect(block!.hash).toBe(BLOCK.hash);
    expect(block!.transactions.map((tx) => tx.txid)).toEqual(BLOCK.tx);
    expect(block!.transactions[1]!.outputs[0]!.value).toBe(12_345_678_912_345_678n);
    const methods = () =>
      node.requests
        .slice(before)
        .map((request) => (request.body as Call[]).map((call) => `${call.method}/${call.params.length}`).join(' '));
    // getblockhash, getblock, getrawtransaction with the hash (refused), then without.
    expect(methods()).toEqual([
      'getblockhash/1',
      'getblock/2',
      'getrawtransaction/3 getrawtransaction/3',
      'getrawtransaction/2 getrawtransaction/2',
    ]);

    const again = node.requests.length;
    await readBlocks(rpc, BigInt(BLOCK.height), BigInt(BLOCK.height), 'block-and-transactions');
    expect(node.requests.slice(again).map((request) => (request.body as Call[])[0]!.params.length)).toEqual([1, 2, 2]);
  });

  it('reads no header above the tip', async () => {
    const rpc = new BitcoinRpc([node.url]);
    expect(await readHeader(rpc, BigInt(BLOCK.height) + 1n)).toBeUndefined();
  });

  it('reads nothing for an empty range', async () => {
    const rpc = new BitcoinRpc([node.url]);
    const count = node.requests.length;
    expect(await readBlocks(rpc, 10n, 9n, 'verbose-block')).toEqual([]);
    expect(node.requests).toHaveLength(count);
  });
});
