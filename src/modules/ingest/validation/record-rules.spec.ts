import { hex } from '@scure/base';
import fc from 'fast-check';
import { Address } from '@ton/core';
import { getAddress } from 'viem';
import type { Instant } from '../../../core/records/brands';
import type { RecordInput } from '../../../core/records/record-input';
import type { DataRecord } from '../../../core/records/records';
import { CheckedValues } from './checked-values';
import { checkRecord, normaliseDecimal, RuleResult } from './record-rules';

const STARTED = '2024-06-01T00:00:00.000Z' as Instant;
const evmLower = `0x${hex.encode(Uint8Array.from({ length: 20 }, (_v, i) => i * 7 + 3))}`;
const evmChecksummed = getAddress(evmLower);
const USDT_ETHEREUM = '0xdac17f958d2ee523a2206206994597c13d831ec7';
const tonAccount = new Address(0, Buffer.alloc(32, 0xab));

/** A record as it arrives from a file: the JSON text of the object, parsed. */
function check(line: object | string): RuleResult {
  return checkRecord(JSON.parse(typeof line === 'string' ? line : JSON.stringify(line)), STARTED);
}

function record(line: object): DataRecord {
  const result = check(line);
  if (!result.ok) throw new Error(`expected a valid line, got: ${result.reason}`);
  return result.record;
}

function reason(line: object | string): string {
  const result = check(line);
  if (result.ok) throw new Error(`expected an invalid line, got ${JSON.stringify(result.record)}`);
  return result.reason;
}

const holding = {
  type: 'holding',
  chain: 'ethereum',
  address: evmChecksummed,
  token_address: USDT_ETHEREUM.toUpperCase().replace('0X', '0x'),
  balance: '000120',
  updated_at: '2024-05-01T10:00:00Z',
};

const transaction = {
  type: 'transaction',
  id: 'tx-1:0',
  chain: 'ton',
  token_address: '0',
  from_address: tonAccount.toString({ bounceable: true, urlSafe: true }),
  to_address: tonAccount.toRawString(),
  value: '5',
  tx_hash: 'abc',
  block_number: '0042',
  block_hash: 'def',
  block_time: '2024-05-01T10:00:00.123Z',
};

const tokenLine = {
  type: 'token',
  id: 'usd-coin',
  name: 'USDC',
  symbol: 'USDC',
  icon_url: 'https://example.com/usdc.png',
  deployments: [
    { chain: 'ethereum', address: getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'), decimals: 6 },
    { chain: 'sui', address: '0x2::sui::SUI', decimals: 9 },
  ],
};

const chainLine = {
  type: 'chain',
  chain: 'base',
  chainId: 8453,
  name: 'Base',
  icon_url: 'https://example.com/base.png',
  explorers: [
    {
      name: 'BaseScan',
      url: 'https://basescan.org',
      tx_url: 'https://basescan.org/tx/{{tx_id}}',
      address_url: 'https://basescan.org/address/{{address}}',
    },
  ],
};

describe('checkRecord', () => {
  it('normalises a holding: canonical addresses, balance without leading zeros, toISOString time', () => {
    expect(record(holding)).toEqual({
      type: 'holding',
      chain: 'ethereum',
      address: evmLower,
      token_address: USDT_ETHEREUM,
      balance: '120',
      updated_at: '2024-05-01T10:00:00.000Z',
    });
  });

  it('keeps a 78-digit balance exactly and refuses a 79-digit one', () => {
    const big = '9'.repeat(78);
    expect(record({ ...holding, balance: big })).toMatchObject({ balance: big });
    expect(reason({ ...holding, balance: `1${big}` })).toMatch(/balance must be a string of 1 to 78 digits/);
  });

  it.each([
    ['a JSON number', 120],
    ['a negative', '-1'],
    ['a fraction', '1.5'],
    ['an exponent', '1e5'],
    ['empty', ''],
    ['spaces', ' 1'],
  ])('refuses a balance that is %s', (_what, balance) => {
    expect(reason({ ...holding, balance })).toMatch(/^holding: balance must be/);
  });

  it('requires the holder address to be valid on the line’s chain', () => {
    expect(reason({ ...holding, chain: 'bitcoin', token_address: '0' })).toMatch(
      /^holding: address .* is not a bitcoin address: an EVM address is not valid on bitcoin/,
    );
    expect(reason({ ...holding, address: evmChecksummed.replace(/[a-f]/, (c) => c.toUpperCase()) })).toMatch(/EIP-55/);
  });

  it('normalises a transaction, with the sender "0" allowed and block_number as digits', () => {
    expect(record(transaction)).toEqual({
      ...transaction,
      from_address: tonAccount.toRawString(),
      block_number: '42',
      block_time: '2024-05-01T10:00:00.123Z',
    });
    expect(record({ ...transaction, from_address: '0', block_number: 7 })).toMatchObject({
      from_address: '0',
      block_number: '7',
    });
  });

  it.each([
    ['block_number', -1, /block_number must be/],
    ['block_number', 1.5, /block_number must be/],
    ['block_number', 2 ** 53, /block_number must be/],
    ['block_number', '1'.repeat(19), /block_number must be/],
    ['id', '', /id must be a non-empty string/],
    ['id', 'x'.repeat(257), /id must be a non-empty string of at most 256/],
    ['tx_hash', '', /tx_hash must be/],
    ['id', 'tx\u00001', /id must not contain the character U\+0000/],
    ['block_hash', '0xab\u0000', /block_hash must not contain the character U\+0000/],
    ['block_hash', 5, /block_hash must be/],
    ['to_address', '0', /to_address "0" is not a ton address/],
    ['value', '1'.repeat(79), /value must be a string of 1 to 78 digits/],
    ['chain', 'tron', /unknown chain "tron"/],
    ['token_address', 'EQ-not-a-jetton', /token_address "EQ-not-a-jetton" is not a token address on ton/],
  ])('refuses a transaction whose %s is %j', (field, value, expected) => {
    expect(reason({ ...transaction, [field]: value })).toMatch(expected);
  });

  it.each([
    '2024-05-01T10:00:00',
    '2024-05-01T10:00:00+00:00',
    '2024-05-01 10:00:00Z',
    '2024-05-01T10:00:00.1234Z',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T23:59:60Z',
    '0000-01-01T00:00:00Z',
    '1714557600',
  ])('refuses the timestamp %s', (time) => {
    expect(reason({ ...transaction, block_time: time })).toMatch(/block_time must be a UTC timestamp/);
  });

  it('accepts a leap day and fractions of one to three digits', () => {
    expect(record({ ...transaction, block_time: '2024-02-29T23:59:59.5Z' })).toMatchObject({
      block_time: '2024-02-29T23:59:59.500Z',
    });
  });

  it('names unknown fields, then missing ones', () => {
    expect(reason({ ...holding, balanse: '1', extra: true })).toBe('holding: unknown fields "balanse", "extra"');
    const { balance: _balance, ...withoutBalance } = holding;
    expect(reason(withoutBalance)).toBe('holding: missing field "balance"');
  });

  it('explains lines that are not objects of a known type', () => {
    expect(reason('[1, 2]')).toBe('a line must be a JSON object');
    expect(reason({ chain: 'ethereum' })).toMatch(/^missing "type"/);
    expect(reason({ type: 'balance' })).toMatch(/^unknown type "balance"/);
  });

  it('gives a run of records checked with one memory of values what each gives alone', () => {
    const lines = [
      holding,
      { ...holding, address: evmLower },
      { ...holding, chain: 'bitcoin', token_address: '0' },
      { ...holding, updated_at: '2024-02-30T10:00:00Z' },
      holding,
      transaction,
      { ...transaction, chain: 'ethereum' },
      { ...transaction, block_time: '2024-05-01 10:00:00Z' },
      transaction,
      { ...transaction, from_address: '0' },
    ].map((line) => JSON.parse(JSON.stringify(line)) as object);
    const checked = new CheckedValues();
    const inRun = lines.map((line) => checkRecord(line as RecordInput, STARTED, checked));
    expect(inRun).toEqual(lines.map((line) => check(line)));
    expect(inRun.map((result) => result.ok)).toEqual([true, true, false, false, true, true, false, false, true, true]);
  });

  describe('price lines', () => {
    it('stores usd as an exact decimal without exponent', () => {
      expect(record({ type: 'price', token_id: 'tether', usd: 1e-7, at: '2024-01-01T00:00:00Z' })).toEqual({
        type: 'price',
        token_id: 'tether',
        usd: '0.0000001',
        at: '2024-01-01T00:00:00.000Z',
      });
      expect(record({ type: 'price', token_id: 'bitcoin', usd: '00065000.1200' })).toMatchObject({ usd: '65000.12' });
      expect(record({ type: 'price', token_id: 'bitcoin', usd: 1e99 })).toMatchObject({ usd: `1${'0'.repeat(99)}` });
    });

    it('defaults at to the start of the import', () => {
      expect(record({ type: 'price', token_id: 'bitcoin', usd: 1 })).toMatchObject({ at: STARTED });
    });

    it.each([-1, '-1', '1e5', 'NaN', null, true, '.5', 1e100, 1e-100, '1'.repeat(101)])('refuses usd %j', (usd) => {
      expect(reason({ type: 'price', token_id: 'bitcoin', usd })).toMatch(/^price: usd must be/);
    });

    it('refuses token ids that are not slugs', () => {
      expect(reason({ type: 'price', token_id: 'Bitcoin', usd: 1 })).toMatch(/token_id must be a token id slug/);
      expect(reason({ type: 'price', token_id: 'usd--coin', usd: 1 })).toMatch(/token_id must be a token id slug/);
    });
  });

  describe('token lines', () => {
    const token = tokenLine;

    it('stores each deployment address in canonical form', () => {
      expect(record(token)).toMatchObject({
        deployments: [
          { chain: 'ethereum', address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6 },
          { chain: 'sui', address: `0x${'0'.repeat(63)}2::sui::SUI`, decimals: 9 },
        ],
      });
    });

    it('refuses a deployment listed twice, bad decimals and extra fields in a deployment', () => {
      const twice = { ...token, deployments: [token.deployments[0], { ...token.deployments[0], decimals: 18 }] };
      expect(reason(twice)).toMatch(/lists ethereum 0xa0b8.* twice/);
      expect(reason({ ...token, deployments: [{ ...token.deployments[0], decimals: 79 }] })).toMatch(
        /deployments\[0\]\.decimals must be a whole number from 0 to 78/,
      );
      expect(reason({ ...token, deployments: [{ ...token.deployments[0], symbol: 'x' }] })).toBe(
        'token: deployments[0]: unknown field "symbol"',
      );
      expect(reason({ ...token, deployments: [] })).toMatch(/deployments must be an array of 1 to/);
      expect(reason({ ...token, icon_url: 'ftp://example.com/a.png' })).toMatch(/icon_url must be an http\(s\) URL/);
    });
  });

  describe('chain lines', () => {
    const chain = chainLine;

    it('accepts a full chain record', () => {
      expect(record(chain)).toEqual(chain);
    });

    it('requires the URL placeholders and a known chain', () => {
      const explorer = chain.explorers[0]!;
      expect(reason({ ...chain, explorers: [{ ...explorer, tx_url: 'https://basescan.org/tx/' }] })).toMatch(
        /explorers\[0\]\.tx_url must contain the placeholder \{\{tx_id\}\}/,
      );
      expect(reason({ ...chain, explorers: [{ ...explorer, address_url: 'https://basescan.org/' }] })).toMatch(
        /address_url must contain the placeholder \{\{address\}\}/,
      );
      expect(reason({ ...chain, chain: 'zksync' })).toMatch(/unknown chain "zksync"/);
      expect(reason({ ...chain, chainId: '8453' })).toMatch(/chainId must be a whole number/);
    });
  });
});

describe('checkRecord on any line', () => {
  const lines: object[] = [
    holding,
    transaction,
    { type: 'price', token_id: 'tether', usd: '1.0001', at: '2024-01-01T00:00:00Z' },
    tokenLine,
    chainLine,
  ];
  const anyValue: fc.Arbitrary<unknown> = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.constantFrom(
      '',
      '0',
      '-1',
      '1e3',
      '0x',
      ' 5',
      '5 ',
      '\u0000',
      'ethereum',
      'ton',
      evmLower,
      '2024-02-29T00:00:00Z',
    ),
  );
  /**
   * Each field mostly kept, at times left out or replaced by any JSON value, and at times one field
   * more, down into the nested deployments and explorers: about two lines in five stay valid.
   */
  const mutated = (value: unknown, depth = 0): fc.Arbitrary<unknown> => {
    if (Array.isArray(value)) return fc.tuple(...value.map((item) => mutated(item, depth + 1)));
    if (typeof value !== 'object' || value === null || depth > 2) return fc.constant(value);
    const fields = Object.entries(value).map(([name, field]) =>
      fc.oneof(
        { weight: 24, arbitrary: mutated(field, depth + 1).map((kept) => [[name, kept]]) },
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: anyValue.map((other) => [[name, other]]) },
      ),
    );
    const extra = fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('type', 'extra', 'at', 'decimals'), anyValue) },
    );
    return fc.tuple(fc.tuple(...fields), extra).map(([kept, added]) => ({
      ...Object.fromEntries(kept.flat() as [string, unknown][]),
      ...(added === undefined ? {} : { [added[0]]: added[1] }),
    }));
  };

  it('answers every line with a record or a reason, and a record it gives passes again unchanged', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...lines).chain((line) => mutated(line)),
        (line) => {
          const result = check(JSON.stringify(line));
          if (result.ok) expect(check(JSON.stringify(result.record))).toEqual(result);
          else expect(result.reason).toMatch(/^\S.{4,}/);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('normaliseDecimal', () => {
  it('gives every decimal string one spelling', () => {
    expect(normaliseDecimal('000')).toBe('0');
    expect(normaliseDecimal('0.000')).toBe('0');
    expect(normaliseDecimal('010.0100')).toBe('10.01');
  });
});
