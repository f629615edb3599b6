import type { Chain } from '../../core/chains/chain-registry';
import type { TokenInput } from '../../core/records/record-input';
import { discoveredTokenId } from '../../core/tokens/discovered-token-id';

/** The longest name and symbol a token record takes (the import's rules, record-rules.ts). */
const MAX_NAME = 200;
const MAX_SYMBOL = 50;
/** The most decimals a deployment may have; a contract claiming more is not a token chaintags records. */
const MAX_DECIMALS = 78;

export interface ContractMetadata {
  name: string;
  symbol: string;
  decimals: number;
}

/**
 * The token record of a contract (a Solana mint, a TON master, a Move coin type or asset) seen for
 * the first time (contract §10, §16): id `<chain>-<contract>` as discoveredTokenId spells it,
 * name and symbol as the contract gives them (control characters removed, cut to the record's
 * limits; the contract address, or `UNKNOWN`, when it gives none), decimals from `decimals()` (0
 * when the contract has no such function, as explorers show it). Its icon is the chain's until an
 * import gives it one. Undefined when the contract cannot be a token record: decimals out of range.
 */
export function tokenFromContract(
  chain: Pick<Chain, 'id' | 'iconUrl'>,
  contract: string,
  metadata: ContractMetadata | undefined,
): TokenInput | undefined {
  const decimals = metadata?.decimals ?? 0;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) return undefined;
  return {
    type: 'token',
    id: discoveredTokenId(chain.id, contract),
    name: cleanText(metadata?.name, MAX_NAME) || contract,
    symbol: cleanText(metadata?.symbol, MAX_SYMBOL) || 'UNKNOWN',
    icon_url: chain.iconUrl,
    deployments: [{ chain: chain.id, address: contract, decimals }],
  };
}

function cleanText(raw: string | undefined, max: number): string {
  if (raw === undefined) return '';
  // eslint-disable-next-line no-control-regex
  const printable = raw.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '').trim();
  // The limit counts UTF-16 code units, as the record's rule does; a character is never cut in two.
  let text = '';
  for (const character of printable) {
    if (text.length + character.length > max) break;
    text += character;
  }
  return text;
}
