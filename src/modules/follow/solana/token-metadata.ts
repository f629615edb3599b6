import { getAddressEncoder, getProgramDerivedAddress, type Address } from '@solana/kit';
import type { Chain } from '../../../core/chains/chain-registry';
import type { TokenInput } from '../../../core/records/record-input';
import { tokenFromContract, type ContractMetadata } from '../token-discovery';
import type { SolanaRpc } from './solana-rpc';

/** Metaplex's Token Metadata program: a mint's name and symbol live in an account it derives from the mint. */
export const METAPLEX_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s' as Address;

/** `getMultipleAccounts` takes at most 100 keys. */
const ACCOUNTS_PER_CALL = 100;

/** A mint account as `getMultipleAccounts` answers with `jsonParsed`. */
interface ParsedMint {
  data?: {
    parsed?: {
      type?: string;
      info?: {
        decimals?: number;
        extensions?: readonly { extension?: string; state?: { name?: string; symbol?: string } }[];
      };
    };
  };
}

/**
 * The token records of mints seen for the first time (contract §16): id `solana-<mint>` (the mint
 * lowercased, as token ids are slugs; the deployment keeps the mint as it is), decimals from the
 * mint account, name and symbol from its Token-2022 metadata extension, else from its Metaplex
 * metadata account, else the mint address and `UNKNOWN` as for any token that names none.
 * Undefined for an address that is not a mint of either token program.
 */
export async function mintTokens(
  rpc: SolanaRpc,
  chain: Pick<Chain, 'id' | 'iconUrl'>,
  mints: readonly string[],
): Promise<Map<string, TokenInput | undefined>> {
  const found = new Map<string, TokenInput | undefined>();
  const metadataAccounts = await Promise.all(mints.map((mint) => metaplexAccount(mint as Address)));
  for (let start = 0; start < mints.length; start += ACCOUNTS_PER_CALL) {
    const part = mints.slice(start, start + ACCOUNTS_PER_CALL);
    const parsed = await rpc.call((client) =>
      client.getMultipleAccounts(part as Address[], { commitment: 'finalized', encoding: 'jsonParsed' }),
    );
    const metaplex = await rpc.call((client) =>
      client.getMultipleAccounts(metadataAccounts.slice(start, start + ACCOUNTS_PER_CALL), {
        commitment: 'finalized',
        encoding: 'base64',
      }),
    );
    part.forEach((mint, index) => {
      const account = parsed.value[index] as ParsedMint | null;
      const info = account?.data?.parsed?.type === 'mint' ? account.data.parsed.info : undefined;
      if (info?.decimals === undefined) {
        found.set(mint, undefined);
        return;
      }
      const extension = info.extensions?.find((entry) => entry.extension === 'tokenMetadata')?.state;
      const metadataAccount = metaplex.value[index];
      const fromMetaplex =
        metadataAccount === null || metadataAccount === undefined || metadataAccount.owner !== METAPLEX_METADATA_PROGRAM
          ? undefined
          : metaplexNameAndSymbol(Buffer.from(metadataAccount.data[0], 'base64'));
      const metadata: ContractMetadata = {
        name: extension?.name ?? fromMetaplex?.name ?? '',
        symbol: extension?.symbol ?? fromMetaplex?.symbol ?? '',
        decimals: info.decimals,
      };
      found.set(mint, tokenFromContract(chain, mint, metadata));
    });
  }
  return found;
}

/** The Metaplex metadata account of `mint`: the address derived from `metadata`, the program and the mint. */
async function metaplexAccount(mint: Address): Promise<Address> {
  const encoder = getAddressEncoder();
  const [derived] = await getProgramDerivedAddress({
    programAddress: METAPLEX_METADATA_PROGRAM,
    seeds: ['metadata', encoder.encode(METAPLEX_METADATA_PROGRAM), encoder.encode(mint)],
  });
  return derived;
}

/**
 * Name and symbol from a Metaplex metadata account: a key byte, the update authority and the mint
 * (32 bytes each), then name and symbol as Borsh strings (a u32 length, then UTF-8, padded with
 * NULs). Undefined for data too short to hold them.
 */
export function metaplexNameAndSymbol(data: Uint8Array): { name: string; symbol: string } | undefined {
  let offset = 1 + 32 + 32;
  const text = (): string | undefined => {
    if (offset + 4 > data.length) return undefined;
    const length = new DataView(data.buffer, data.byteOffset + offset, 4).getUint32(0, true);
    offset += 4;
    if (offset + length > data.length) return undefined;
    const value = Buffer.from(data.subarray(offset, offset + length)).toString('utf8');
    offset += length;
    return value.replace(/\0+$/, '');
  };
  const name = text();
  const symbol = text();
  return name === undefined || symbol === undefined ? undefined : { name, symbol };
}
