import { wrappedTransportError } from './http-transport';

/**
 * A node's failure for a person, without the node's URLs (providers put API keys and passwords in
 * them): each of `rpcUrls` and anything else that looks like a URL becomes `<rpc url>`; at most 500
 * characters. A failure below HTTP that the message does not name (viem's "HTTP request failed.")
 * gets its socket error's meaning: `(the connection was refused)`. What `GET /v2/sync`, the log
 * and `follow --check` show.
 */
export function describeNodeError(error: unknown, rpcUrls: readonly string[]): string {
  const raw =
    error instanceof Error
      ? ((error as Error & { shortMessage?: string }).shortMessage ?? error.message)
      : String(error);
  const below = wrappedTransportError(error);
  let text = below === undefined ? raw : `${raw} (${below})`;
  for (const url of rpcUrls) text = text.split(url).join('<rpc url>');
  return text.replace(/https?:\/\/\S+/g, '<rpc url>').slice(0, 500);
}
