import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { lookup as lookupCallback } from 'node:dns';
import { isInternalAddress } from './internal-addresses';

export const MAX_URL_LENGTH = 2048;

/** Why a URL may not receive webhooks, for a person; undefined when it may. */
export type UrlProblem = string | undefined;

/** The syntax rules of a webhook URL (contract §14): absolute http or https, with a host, no fragment. */
export function urlSyntaxProblem(raw: string): UrlProblem {
  if (raw.length > MAX_URL_LENGTH) return `url is longer than ${MAX_URL_LENGTH} characters`;
  // The URL parser would drop tabs and line breaks and percent-encode the rest, so the stored text
  // would not be the URL requested; U+0000 PostgreSQL's text cannot even hold.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(raw)) return 'url must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be an http or https URL';
  if (url.hostname === '') return 'url has no host';
  if (url.hash !== '') return 'url must not have a fragment';
  return undefined;
}

/** The host of a URL as the resolver and `isIP` take it (IPv6 literals without their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Where the URL's host leads: refused when it is, or resolves to, an internal address (any one of
 * the addresses the name has, since a client may connect to any of them).
 */
export async function destinationProblem(url: URL): Promise<UrlProblem> {
  const host = hostOf(url);
  if (isIP(host) !== 0) {
    return isInternalAddress(host) ? `url points at an internal address (${host})` : undefined;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return `url's host "${host}" does not resolve`;
  }
  const internal = addresses.find(({ address }) => isInternalAddress(address));
  return internal === undefined ? undefined : `url's host resolves to an internal address (${internal.address})`;
}

/**
 * A resolver for one delivery's connection that refuses internal addresses after resolving, so
 * the address checked is the address connected to (a name that resolved to a public address at
 * creation and to 127.0.0.1 now, DNS rebinding, is refused).
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookupCallback(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', 0);
      const list = addresses;
      const internal = allowPrivate ? undefined : list.find(({ address }) => isInternalAddress(address));
      if (internal !== undefined) {
        return callback(
          new InternalDestination(`the host resolves to an internal address (${internal.address})`),
          '',
          0,
        );
      }
      if (list.length === 0) return callback(new Error(`${hostname} has no address`), '', 0);
      if (options.all === true) {
        (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, list);
        return;
      }
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** A delivery refused because its destination is internal. */
export class InternalDestination extends Error {}
