import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, toNano } from '@ton/core';
import { onChainContent, TestJetton } from './support/ton-jetton';
import { TonStandIn } from './support/toncenter-stand-in';

/**
 * The toncenter stand-in answers in the documented shapes: for each method the TON source calls,
 * the stand-in's answer has the keys of the documentation's example (test/fixtures/ton/), each
 * with a value of the same JSON type, recursively (an array's items against the example's first).
 */

const FIXTURES = join(__dirname, 'fixtures', 'ton');

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Where `actual` differs from the shape of `documented`, as paths; `loose` paths are compared by type only. */
function differences(documented: unknown, actual: unknown, path: string, loose: readonly string[]): string[] {
  if (typeOf(documented) !== typeOf(actual))
    return [`${path}: ${typeOf(actual)} where the docs have ${typeOf(documented)}`];
  if (loose.includes(path)) return [];
  if (Array.isArray(documented)) {
    const items = actual as unknown[];
    if (documented.length === 0 || items.length === 0) return [];
    return items.flatMap((item, index) => differences(documented[0], item, `${path}[${index}]`, loose));
  }
  if (typeOf(documented) !== 'object') return [];
  const doc = documented as Record<string, unknown>;
  const got = actual as Record<string, unknown>;
  const found: string[] = [];
  for (const key of Object.keys(doc)) {
    if (!(key in got)) found.push(`${path}.${key}: missing`);
    else found.push(...differences(doc[key], got[key], `${path}.${key}`, loose));
  }
  for (const key of Object.keys(got)) if (!(key in doc)) found.push(`${path}.${key}: not in the docs`);
  return found;
}

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as unknown;
}

describe('the toncenter stand-in', () => {
  let ton: TonStandIn;
  let get: (path: string) => Promise<unknown>;
  let jetton: TestJetton;
  let owner: string;
  /** alice's payment to bob: the stand-in must name alice's transaction that sent it. */
  let payment: { source: string; destination: string; createdLt: string; hash: string };

  beforeAll(async () => {
    ton = await TonStandIn.start();
    const alice = await ton.blockchain.treasury('alice');
    const bob = await ton.blockchain.treasury('bob');
    jetton = await TestJetton.deploy(ton, alice, onChainContent({ name: 'Shape', symbol: 'SHP' }));
    await jetton.mint(alice.address, 1000n);
    const sent = ton.record(await alice.send({ to: bob.address, value: toNano('1'), bounce: false }));
    const origin = sent.find((tx) => (tx.inMessage?.info.dest as Address).equals(alice.address))!;
    const message = [...origin.outMessages.values()][0]!;
    payment = {
      source: alice.address.toString(),
      destination: bob.address.toString(),
      createdLt: message.info.type === 'internal' ? message.info.createdLt.toString() : '',
      hash: origin.hash().toString('base64'),
    };
    ton.seal();
    owner = alice.address.toRawString();
    get = async (path) => (await fetch(`${ton.apiUrl}/${path}`)).json();
  }, 60_000);

  afterAll(() => ton?.close());

  const SHARD = encodeURIComponent('-9223372036854775808');

  it.each([
    ['getMasterchainInfo', () => 'getMasterchainInfo'],
    ['getBlockHeader', () => `getBlockHeader?workchain=-1&shard=${SHARD}&seqno=1`],
    ['shards', () => 'shards?seqno=1'],
    ['getBlockTransactions', () => `getBlockTransactions?workchain=0&shard=${SHARD}&seqno=1&count=40`],
    ['getTransactions', () => `getTransactions?address=${owner}&limit=5`],
    ['getAddressBalance', () => `getAddressBalance?address=${owner}&seqno=1`],
    ['lookupBlock', () => `lookupBlock?workchain=-1&shard=${SHARD}&seqno=1`],
    [
      'tryLocateSourceTx',
      () =>
        `tryLocateSourceTx?source=${payment.source}&destination=${payment.destination}&created_lt=${payment.createdLt}`,
    ],
  ])('answers %s in the documented shape', async (name, path) => {
    const answer = (await get(path())) as Record<string, unknown>;
    const documented = fixture(name) as Record<string, unknown>;
    // `@extra` (a request id) is in every answer; one page leaves it out of its example.
    if (!('@extra' in documented)) delete answer['@extra'];
    expect(differences(documented, answer, 'answer', [])).toEqual([]);
  });

  it('locates the transaction that sent a message, and refuses one it cannot find', async () => {
    const query = `source=${payment.source}&destination=${payment.destination}`;
    const found = (await get(`tryLocateSourceTx?${query}&created_lt=${payment.createdLt}`)) as {
      ok: boolean;
      result: { transaction_id: { hash: string } };
    };
    expect(found.ok).toBe(true);
    expect(found.result.transaction_id.hash).toBe(payment.hash);
    const missing = (await get(`tryLocateSourceTx?${query}&created_lt=${BigInt(payment.createdLt) + 1n}`)) as {
      ok: boolean;
    };
    expect(missing.ok).toBe(false);
  });

  it('answers runGetMethod in the documented shape', async () => {
    const response = await fetch(`${ton.apiUrl}/runGetMethod`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: jetton.master.toString(), method: 'get_jetton_data', stack: [] }),
    });
    const answer = (await response.json()) as { result: { stack: unknown[] } };
    expect(answer.result.stack.length).toBe(5);
    expect(differences(fixture('runGetMethod'), answer, 'answer', ['answer.result.stack'])).toEqual([]);
  });

  it('would notice a key the docs do not have', () => {
    expect(differences({ a: 1 }, { a: 1, b: 2 }, 'x', [])).toEqual(['x.b: not in the docs']);
    expect(differences({ a: '1' }, { a: 1 }, 'x', [])).toEqual(['x.a: number where the docs have string']);
  });
});
