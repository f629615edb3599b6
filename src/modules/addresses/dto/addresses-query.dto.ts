import { AddressList } from '../../../http/validation/query-params';

/** At most this many addresses in one `GET /v2/addresses` (a hundred of the longest keep the URL within 8 KB, nginx's default). */
export const MAX_ADDRESSES_PER_LOOKUP = 100;

/** The query of GET /v2/addresses: the addresses to look up. */
export class AddressesQueryDto {
  @AddressList(
    MAX_ADDRESSES_PER_LOOKUP,
    `The addresses to look up, in any accepted spelling: 1 to ${MAX_ADDRESSES_PER_LOOKUP}, comma-separated ` +
      '(`?address=a,b`), repeated (`?address=a&address=b`) or both.',
  )
  address!: string[];
}
