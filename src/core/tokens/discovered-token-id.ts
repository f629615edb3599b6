import { createHash } from 'node:crypto';
import type { ChainId } from '../chains/chain-ids';
import { MAX_TOKEN_ID_LENGTH } from './token-id';

/**
 * The id of a token a follower records for the first time at `address` on `chain` (contract §10,
 * §16): `<chain>-<address>`, spelled as a token id may be. A Solana mint is lowercased (the
 * deployment keeps the mint as it is); a TON master's raw `0:<hex>` becomes `0-<hex>`; a Sui coin
 * type is a slug (coinTypeSlug). The price poller prices a token whose id this is by its
 * deployment's contract.
 */
export function discoveredTokenId(chain: ChainId, address: string): string {
  if (chain === 'solana') return `${chain}-${address.toLowerCase()}`;
  if (chain === 'ton') return `${chain}-${address.replace(':', '-')}`;
  if (chain === 'sui') return coinTypeSlug(chain, address);
  return `${chain}-${address}`;
}

/**
 * A coin type (`0x<64 hex>::<module>::<Name>`) as a token id: `<chain>-<address hex>-<module>-<name>`,
 * lowercased, every run of other characters one `-`, or, when that is longer than a token id may
 * be, `<chain>-<address hex>-` and the first 16 hex digits of the type's SHA-256.
 */
function coinTypeSlug(chain: ChainId, coinType: string): string {
  const slug = `${chain}-${coinType.replace(/^0x/, '')}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  if (slug.length <= MAX_TOKEN_ID_LENGTH) return slug;
  const address = coinType.slice(2, coinType.indexOf('::')).toLowerCase();
  return `${chain}-${address}-${createHash('sha256').update(coinType).digest('hex').slice(0, 16)}`;
}
