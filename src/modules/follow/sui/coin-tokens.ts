import { createHash } from 'node:crypto';
import type { Chain } from '../../../core/chains/chain-registry';
import type { TokenInput } from '../../../core/records/record-input';
import { tokenFromContract } from '../token-discovery';

/** Token ids are slugs of at most 100 characters (the import's rule, record-rules.ts). */
const MAX_TOKEN_ID = 100;

/**
 * The token id of a coin type (`0x<64 hex>::<module>::<Name>`): `sui-<address hex>-<module>-<name>`,
 * lowercased, every run of other characters one `-` (token ids are slugs), or, when that is longer
 * than a token id may be, `sui-<address hex>-` and the first 16 hex digits of the type's SHA-256.
 */
export function coinTokenId(chainId: string, coinType: string): string {
  const slug = `${chainId}-${coinType.replace(/^0x/, '')}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  if (slug.length <= MAX_TOKEN_ID) return slug;
  const address = coinType.slice(2, coinType.indexOf('::')).toLowerCase();
  return `${chainId}-${address}-${createHash('sha256').update(coinType).digest('hex').slice(0, 16)}`;
}

/** A coin's metadata as `GetCoinInfo` answers it (the fields read). */
export interface CoinMetadataFields {
  decimals?: number;
  name?: string;
  symbol?: string;
}

/** The token record of a coin type seen for the first time; undefined without metadata (no decimals). */
export function coinTokenRecord(
  chain: Pick<Chain, 'id' | 'iconUrl'>,
  coinType: string,
  metadata: CoinMetadataFields | undefined,
): TokenInput | undefined {
  if (metadata?.decimals === undefined) return undefined;
  const token = tokenFromContract(chain, coinType, {
    name: metadata.name ?? '',
    symbol: metadata.symbol ?? '',
    decimals: metadata.decimals,
  });
  return token === undefined ? undefined : { ...token, id: coinTokenId(chain.id, coinType) };
}
