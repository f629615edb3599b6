import { answer, failure, startStandIn, StandIn } from '../../../../test/support/bitcoin-node-stand-in';
import { BitcoinRpc } from './bitcoin-rpc';
import { networkMismatch, UtxoChainId } from './network';

/**
 * The mainnet side of the network check, on a node's HTTP face that serves the block hashes of a
 * chain (the regtest side runs on litecoind: test/utxo-node.e2e-spec.ts). The hashes are the
 * published ones cited in network.ts, repeated here so that a typo there fails a test.
 */

const BITCOIN_GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
const DOGECOIN_GENESIS = '1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691';
const BTC_478559 = '00000000000000000019f112ec0a9982926f1258cdcc558dd7c3b7e5dc7fa148';
const BCH_478559 = '000000000000000000651ef99cb9fcbe0dadde1d424bd9f15ff20136191a5eec';
const BCH_556767 = '0000000000000000004626ff6e3b936941d341c5932ece4357eeccac44e6d56c';
const OTHER = 'ab'.repeat(32);

interface FakeChain {
  name: string;
  hashes: Record<number, string>;
}

const chains: Record<string, FakeChain> = {
  bitcoin: { name: 'main', hashes: { 0: BITCOIN_GENESIS, 478559: BTC_478559, 556767: OTHER } },
  bitcoincash: { name: 'main', hashes: { 0: BITCOIN_GENESIS, 478559: BCH_478559, 556767: BCH_556767 } },
  bitcoinsv: { name: 'main', hashes: { 0: BITCOIN_GENESIS, 478559: BCH_478559, 556767: OTHER } },
  syncing: { name: 'main', hashes: { 0: BITCOIN_GENESIS } },
  dogecoin: { name: 'main', hashes: { 0: DOGECOIN_GENESIS } },
  testnet: { name: 'test', hashes: { 0: OTHER } },
};

describe('networkMismatch on mainnet', () => {
  let node: StandIn;
  let serving: FakeChain;

  beforeAll(async () => {
    // One call, or a batch of them, as Bitcoin Core answers: the best height is the highest one served.
    const reply = (call: { id: number; method: string; params: number[] }): unknown => {
      if (call.method === 'getblockchaininfo') {
        const blocks = Math.max(...Object.keys(serving.hashes).map(Number));
        return { result: { chain: serving.name, blocks }, error: null, id: call.id };
      }
      const hash = serving.hashes[call.params[0]!];
      return hash === undefined ? failure(call, -8, 'Block height out of range') : answer(call, hash);
    };
    node = await startStandIn((body) => {
      if (Array.isArray(body)) return { body: JSON.stringify(body.map(reply)) };
      const one = reply(body as { id: number; method: string; params: number[] }) as { error: unknown };
      return { status: one.error === null ? 200 : 500, body: JSON.stringify(one) };
    });
  });
  afterAll(() => node.close());

  const check = (serves: string, chain: UtxoChainId) => {
    serving = chains[serves]!;
    return networkMismatch(new BitcoinRpc([node.url]), chain, 'mainnet');
  };

  it.each<[string, UtxoChainId, RegExp | undefined]>([
    ['bitcoin', 'bitcoin', undefined],
    ['bitcoincash', 'bitcoincash', undefined],
    ['dogecoin', 'dogecoin', undefined],
    [
      'bitcoincash',
      'bitcoin',
      /the node follows Bitcoin Cash \(or a chain split from it\): its block 478559 is not Bitcoin's/,
    ],
    ['bitcoin', 'bitcoincash', /the node follows Bitcoin: its block 478559 is not Bitcoin Cash's/],
    ['bitcoinsv', 'bitcoincash', /the node follows another chain \(Bitcoin SV\?\): its block 556767/],
    ['bitcoinsv', 'bitcoin', /follows Bitcoin Cash/],
    [
      'dogecoin',
      'bitcoin',
      /NETWORK_BITCOIN is mainnet, but the node's genesis block is not Bitcoin's mainnet genesis/,
    ],
    ['bitcoin', 'dogecoin', /not Dogecoin's mainnet genesis \(the node says it is on "main"\)/],
    ['testnet', 'bitcoincash', /not Bitcoin Cash's mainnet genesis \(the node says it is on "test"\)/],
    // Before the split, every block is both chains': accepted, to be checked again past it.
    ['syncing', 'bitcoin', undefined],
    ['syncing', 'bitcoincash', undefined],
  ])('a %s node followed as %s: %s', async (serves, chain, reason) => {
    const from = node.requests.length;
    const said = await check(serves, chain);
    if (reason === undefined) expect(said).toBeUndefined();
    else expect(said).toMatch(reason);
    // getblockchaininfo, then the hashes in one batch: two requests.
    expect(node.requests.length - from).toBe(2);
  });

  it('takes a getblockchaininfo without a block height for a malformed answer', async () => {
    // No height served: Math.max() of none is -Infinity, which JSON writes as null.
    serving = { name: 'main', hashes: {} };
    await expect(networkMismatch(new BitcoinRpc([node.url]), 'bitcoin', 'mainnet')).rejects.toThrow(
      'getblockchaininfo has no block height (blocks)',
    );
  });

  it('refuses a mainnet node for regtest, naming what it says it is', async () => {
    serving = chains.bitcoin!;
    expect(await networkMismatch(new BitcoinRpc([node.url]), 'bitcoin', 'regtest')).toBe(
      'NETWORK_BITCOIN is regtest, but the node says it is on "main"',
    );
  });
});
