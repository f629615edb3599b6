export type { AddressFamily, AddressParseResult, ParsedAddress } from './address-families';
export {
  canonicalAddressOnChain,
  isAddressOnChain,
  MAX_ADDRESS_LENGTH,
  NOT_AN_ADDRESS,
  parseAddress,
} from './address-parser';
export { MAX_COIN_TYPE_LENGTH, NATIVE_TOKEN, parseTokenAddress } from './token-address';
export type { TokenAddressParseResult } from './token-address';
