import { Injectable, PipeTransform } from '@nestjs/common';
import { ParsedAddress, parseAddress } from '../../core/addresses';
import { parseAddressList, unparsedAddresses } from '../../core/addresses/address-list';
import { ApiError } from '../../core/errors';

export const MAX_ADDRESSES_PER_REQUEST = 1000;

/** `:address` path parameters: any accepted form becomes the canonical universal address. */
@Injectable()
export class AddressPipe implements PipeTransform<string, ParsedAddress> {
  transform(value: string): ParsedAddress {
    const parsed = parseAddress(value);
    if (!parsed.ok) {
      throw new ApiError(
        'INVALID_ADDRESS',
        `Not an address of any supported chain: "${value.slice(0, 128)}" (${parsed.reason})`,
        [{ address: value.slice(0, 128), reason: parsed.reason }],
      );
    }
    return parsed.address;
  }
}

/**
 * Bodies that list addresses: a JSON array of 1 to 1000 strings. Every invalid address is named in
 * `details`; repeated addresses (in any accepted form) collapse to one, in first-seen order.
 */
@Injectable()
export class AddressListPipe implements PipeTransform<unknown, ParsedAddress[]> {
  transform(body: unknown): ParsedAddress[] {
    if (!Array.isArray(body)) throw new ApiError('INVALID_BODY', 'The body must be a JSON array of address strings.');
    if (body.length === 0) throw new ApiError('INVALID_BODY', 'The body must list at least one address.');
    if (body.length > MAX_ADDRESSES_PER_REQUEST) {
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `At most ${MAX_ADDRESSES_PER_REQUEST} addresses per request; got ${body.length}.`,
      );
    }
    const notStrings = body.flatMap((item: unknown, index) =>
      typeof item === 'string' ? [] : [{ index, type: item === null ? 'null' : typeof item }],
    );
    if (notStrings.length > 0) {
      throw new ApiError('INVALID_BODY', 'Every element of the body must be an address string.', notStrings);
    }
    const { addresses, unparsed } = parseAddressList(body as string[]);
    if (unparsed.length > 0) throw unparsedAddresses(unparsed);
    return addresses;
  }
}
