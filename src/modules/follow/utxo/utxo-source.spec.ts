import { addressOfScript, outputScriptOf } from '../../../core/addresses/output-script';
import { trackedBy } from './utxo-source';

/** The key of Bitcoin's genesis coinbase, paid to as pay-to-pubkey (65-byte uncompressed key). */
const GENESIS_KEY =
  '04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f';
const GENESIS_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';

describe('trackedBy', () => {
  const p2pkh = outputScriptOf('bitcoin', GENESIS_ADDRESS)!;
  const p2pk = `41${GENESIS_KEY}ac`;

  it('finds a followed address by its script, and by its key for a pay-to-pubkey output', () => {
    const scripts = new Map([[p2pkh, GENESIS_ADDRESS]]);
    expect(addressOfScript('bitcoin', p2pk)).toBe(GENESIS_ADDRESS);
    expect(trackedBy(scripts, 'bitcoin', p2pkh)).toBe(GENESIS_ADDRESS);
    expect(trackedBy(scripts, 'bitcoin', p2pk)).toBe(GENESIS_ADDRESS);
  });

  it('finds nothing for scripts of addresses nobody follows', () => {
    expect(trackedBy(new Map(), 'bitcoin', p2pk)).toBeUndefined();
    expect(trackedBy(new Map([[p2pkh, GENESIS_ADDRESS]]), 'bitcoin', '6a0568656c6c6f')).toBeUndefined();
  });
});
