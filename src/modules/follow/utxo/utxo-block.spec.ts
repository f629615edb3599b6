import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

import { addressOfScript } from '../../../core/addresses/output-script';
import { parseNodeJson } from './bitcoin-rpc';
import { blockFromVerbose, MalformedNodeAnswer, NO_PARENT, satoshis, transactionFromVerbose } from './utxo-block';

const FIXTURES = join(__dirname, '../../../../test/fixtures/utxo');
/** A fixture as BitcoinRpc hands it over: the node's text through the same JSON reading. */
const fixture = (name: string): unknown => parseNodeJson(readFileSync(join(FIXTURES, name), 'utf8'));

describe('satoshis', () => {
  it.each([
    ['0', 0n],
    ['0.00000001', 1n],
    ['0.1', 10_000_000n],
    ['50.00000000', 5_000_000_000n],
    ['20999999.99999999', 2_099_999_999_999_999n],
    // Above 2^53 satoshis: a Dogecoin amount a double cannot hold, exact from the node's text.
    ['123456789.12345678', 12_345_678_912_345_678n],
    ['1e-8', 1n],
    ['1.5E2', 15_000_000_000n],
    ['0.100000000000', 10_000_000n],
  ])('reads %s as %s satoshis', (text, expected) => {
    expect(satoshis(text)).toBe(expected);
  });

  it.each([
    [0.1, 10_000_000n],
    [1e-8, 1n],
    [21_000_000, 2_100_000_000_000_000n],
    [0.29, 29_000_000n],
  ])('reads the number %s exactly', (value, expected) => {
    expect(satoshis(value)).toBe(expected);
  });

  it.each(['0.000000001', '-1', '1.', '.5', '', 'NaN', '1e-9', '0x10', ' 1', '1e31', '1,5'])('refuses %j', (text) => {
    expect(() => satoshis(text)).toThrow(MalformedNodeAnswer);
  });

  it('refuses numbers it could not read exactly', () => {
    expect(() => satoshis(Number.NaN)).toThrow(MalformedNodeAnswer);
    expect(() => satoshis(Number.POSITIVE_INFINITY)).toThrow(MalformedNodeAnswer);
    expect(() => satoshis(123456789.12345678)).toThrow(/too large to be exact/);
    // Below 2^53 satoshis, but its double prints as 68480207.58940075.
    expect(() => satoshis(Number('68480207.58940076'))).toThrow(/too large to be exact/);
    expect(satoshis(67108863.99999999)).toBe(6710886399999999n);
    expect(satoshis('68480207.58940076')).toBe(6848020758940076n);
    expect(() => satoshis(0.123456789)).toThrow(MalformedNodeAnswer);
  });

  it('gives back every amount of up to 8 decimals, as text and (below 2^26 coins) as a number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 19n }), (amount) => {
        const digits = amount.toString().padStart(9, '0');
        const text = `${digits.slice(0, -8)}.${digits.slice(-8)}`;
        expect(satoshis(text)).toBe(amount);
        if (amount < 2n ** 26n * 10n ** 8n) expect(satoshis(Number(text))).toBe(amount);
        else expect(() => satoshis(Number(text))).toThrow(/too large to be exact/);
      }),
    );
  });
});

describe('blocks and transactions from documented node answers', () => {
  it('reads the genesis block of Bitcoin Core 22 (verbosity 2): no parent, a pay-to-pubkey coinbase', () => {
    const block = blockFromVerbose(fixture('bitcoin-core-22-getblock-2-genesis.json'));
    expect(block).toEqual({
      height: 0n,
      hash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
      parentHash: NO_PARENT,
      time: '2009-01-03T18:15:05.000Z',
      transactions: [
        {
          txid: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
          coinbase: true,
          inputs: [],
          outputs: [
            {
              n: 0,
              value: 5_000_000_000n,
              script:
                '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac',
            },
          ],
        },
      ],
    });
    expect(addressOfScript('bitcoin', block.transactions[0]!.outputs[0]!.script)).toBe(
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    );
  });

  it('reads a Bitcoin Core 22 block (scriptPubKey.address, witness inputs, OP_RETURN output)', () => {
    const json = fixture('bitcoin-core-22-getblock-2.json') as { hash: string; previousblockhash: string };
    const block = blockFromVerbose(json);
    expect(block.height).toBe(800_000n);
    expect(block.hash).toBe(json.hash);
    expect(block.parentHash).toBe(json.previousblockhash);
    expect(block.time).toBe('2023-07-24T03:17:09.000Z');
    const [coinbase, spend] = block.transactions;
    expect(coinbase!.coinbase).toBe(true);
    expect(coinbase!.outputs.map((output) => output.value)).toEqual([625_012_345n, 0n]);
    expect(addressOfScript('bitcoin', coinbase!.outputs[1]!.script)).toBeUndefined();
    expect(spend!.coinbase).toBe(false);
    expect(spend!.inputs).toHaveLength(2);
    expect(spend!.inputs[0]!.vout).toBe(1);
    expect(spend!.outputs.map((output) => [output.value, addressOfScript('bitcoin', output.script)])).toEqual([
      [10_000_000n, 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
      [2_099_999_999_999_999n, '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu'],
      [1n, '3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC'],
    ]);
  });

  it('reads a Dogecoin 1.14 block from getblock true and the getrawtransaction answers of its txids', () => {
    const json = fixture('dogecoin-1.14-getblock-true.json') as { tx: string[] };
    const answers = fixture('dogecoin-1.14-getrawtransaction-true.json') as unknown[];
    const transactions = answers.map((answer) => transactionFromVerbose(answer));
    expect(transactions.map((tx) => tx.txid)).toEqual(json.tx);
    const block = blockFromVerbose(json, transactions);
    expect(block.height).toBe(5_000_000n);
    expect(block.transactions[0]!.coinbase).toBe(true);
    const outputs = block.transactions[1]!.outputs;
    expect(outputs.map((output) => [output.value, addressOfScript('dogecoin', output.script)])).toEqual([
      [12_345_678_912_345_678n, 'A7HRQk3GFCW2QasvdZxXuYj8kkQK5QrYLs'],
      [1_000_000n, 'DBjW6kna7rUPE4Mj9j4B3oK3xVA1SDHrdt'],
    ]);
    // Without its transactions, a txid-only block cannot be read; with others', neither.
    expect(() => blockFromVerbose(json)).toThrow(/txids only/);
    expect(() => blockFromVerbose(json, [...transactions].reverse())).toThrow(/not the block's/);
  });

  it('reads a Bitcoin Cash Node block, ignoring tokenData, P2SH32 included', () => {
    const block = blockFromVerbose(fixture('bchn-getblock-2-tokendata.json'));
    const spend = block.transactions[1]!;
    expect(spend.outputs.map((output) => [output.value, addressOfScript('bitcoincash', output.script)])).toEqual([
      [1_000n, 'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq'],
      [123_456_789n, 'bitcoincash:pvg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zch7f55mh'],
    ]);
    expect(addressOfScript('bitcoincash', block.transactions[0]!.outputs[0]!.script)).toBe(
      'bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy',
    );
  });

  it('agrees with the address a pre-22 or a 22 node prints, wherever one is printed', () => {
    const cases: [string, 'bitcoin' | 'bitcoincash' | 'dogecoin', unknown[]][] = [
      [
        'bitcoin-core-22-getblock-2.json',
        'bitcoin',
        (fixture('bitcoin-core-22-getblock-2.json') as { tx: unknown[] }).tx,
      ],
      [
        'bchn-getblock-2-tokendata.json',
        'bitcoincash',
        (fixture('bchn-getblock-2-tokendata.json') as { tx: unknown[] }).tx,
      ],
      [
        'dogecoin-1.14-getrawtransaction-true.json',
        'dogecoin',
        fixture('dogecoin-1.14-getrawtransaction-true.json') as unknown[],
      ],
    ];
    for (const [, chain, txs] of cases) {
      for (const tx of txs as { vout: { scriptPubKey: { hex: string; address?: string; addresses?: string[] } }[] }[]) {
        for (const { scriptPubKey } of tx.vout) {
          const printed = scriptPubKey.address ?? scriptPubKey.addresses?.[0];
          if (printed !== undefined) expect(addressOfScript(chain, scriptPubKey.hex)).toBe(printed);
        }
      }
    }
  });
});

describe('malformed answers', () => {
  const good = () =>
    JSON.parse(JSON.stringify(fixture('bitcoin-core-22-getblock-2.json'))) as {
      tx: { vin: Record<string, unknown>[]; vout: Record<string, unknown>[] }[];
    } & Record<string, unknown>;

  it.each<[string, (block: ReturnType<typeof good>) => void, RegExp]>([
    ['a missing hash', (block) => delete block.hash, /block hash/],
    ['an uppercase hash', (block) => (block.hash = (block.hash as string).toUpperCase()), /block hash/],
    ['a height as text', (block) => (block.height = '800000'), /height/],
    ['no previousblockhash above 0', (block) => delete block.previousblockhash, /previousblockhash/],
    ['a fractional time', (block) => (block.time = 1.5), /time/],
    ['no transactions', (block) => (block.tx = []), /no transactions/],
    ['a non-coinbase first', (block) => block.tx.reverse(), /coinbase/],
    ['an output numbered out of order', (block) => (block.tx[1]!.vout[0]!.n = 5), /output 5/],
    ['an amount with 9 decimals', (block) => (block.tx[1]!.vout[0]!.value = '0.000000001'), /decimals/],
    ['an amount that is null', (block) => (block.tx[1]!.vout[0]!.value = null), /amount/],
    ['a script that is not hex', (block) => (block.tx[1]!.vout[0]!.scriptPubKey = { hex: 'xyz' }), /not hex/],
    ['a missing scriptPubKey', (block) => delete block.tx[1]!.vout[0]!.scriptPubKey, /scriptPubKey/],
    ['an input without txid', (block) => delete block.tx[1]!.vin[0]!.txid, /txid/],
    ['a negative vout', (block) => (block.tx[1]!.vin[0]!.vout = -1), /output index/],
    ['a coinbase with two inputs', (block) => block.tx[0]!.vin.push({ coinbase: '00' }), /2 inputs/],
    ['a coinbase input later', (block) => block.tx[1]!.vin.push({ coinbase: '00' }), /coinbase input/],
  ])('refuses %s', (_, spoil, message) => {
    const block = good();
    spoil(block);
    const read = () => blockFromVerbose(block);
    expect(read).toThrow(MalformedNodeAnswer);
    expect(read).toThrow(message);
  });

  it('refuses things that are not blocks or transactions', () => {
    for (const value of [null, 'hex', 42, [], {}]) {
      expect(() => blockFromVerbose(value)).toThrow(MalformedNodeAnswer);
      expect(() => transactionFromVerbose(value)).toThrow(MalformedNodeAnswer);
    }
  });
});
