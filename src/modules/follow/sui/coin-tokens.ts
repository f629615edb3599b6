import type { Chain } from '../../../core/chains/chain-registry';
import type { TokenInput } from '../../../core/records/record-input';
import { tokenFromContract } from '../token-discovery';

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
  return tokenFromContract(chain, coinType, {
    name: metadata.name ?? '',
    symbol: metadata.symbol ?? '',
    decimals: metadata.decimals,
  });
}
