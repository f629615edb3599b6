import { version } from '../../../package.json';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isInternalAddress } from './internal-addresses';
import { guardedLookup, hostOf, InternalDestination } from './webhook-url';

/** Sent with every delivery, so that a receiver's logs and firewall can tell chaintags' requests apart. */
const USER_AGENT = `chaintags-webhooks/${version}`;

/** How long a receiver has to answer, headers and the part of the body read. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The most of an answer's body read (and kept for nothing but draining the connection); the rest is cut off. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
}

/** What one attempt came to: an HTTP status, or why there was none. */
export interface AttemptOutcome {
  status: number | undefined;
  error: string | undefined;
  /** Refused before connecting: the destination is internal. */
  refused: boolean;
}

/**
 * POSTs one delivery and answers what came back, never throwing. Redirects are not followed (the
 * 3xx is the answer); the whole attempt, connection to the last byte read, is bounded by
 * DELIVERY_TIMEOUT_MS, and at most MAX_ANSWER_BYTES of the answer are read, so a receiver that never
 * answers or answers 10 MB holds one connection for 10 s at most. Connections are kept alive per
 * destination between attempts.
 */
export class DeliveryClient {
  private readonly agents = {
    private: { http: keptAlive(http.Agent, true), https: keptAlive(https.Agent, true) },
    public: { http: keptAlive(http.Agent, false), https: keptAlive(https.Agent, false) },
  };

  send(request: DeliveryRequest): Promise<AttemptOutcome> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve({ status: undefined, error: 'the URL is not valid', refused: true });
    }
    const host = hostOf(url);
    if (!request.allowPrivate && isIP(host) !== 0 && isInternalAddress(host)) {
      return Promise.resolve({
        status: undefined,
        error: `the URL points at an internal address (${host})`,
        refused: true,
      });
    }
    const secure = url.protocol === 'https:';
    const agents = request.allowPrivate ? this.agents.private : this.agents.public;
    const transport = secure ? https : http;
    const body = Buffer.from(request.body);

    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const outgoing = transport.request(
        url,
        {
          method: 'POST',
          agent: secure ? agents.https : agents.http,
          lookup: guardedLookup(request.allowPrivate),
          headers: {
            ...request.headers,
            'content-type': 'application/json',
            'content-length': String(body.length),
            'user-agent': USER_AGENT,
          },
        },
        (answer) => {
          const status = answer.statusCode;
          let read = 0;
          answer.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) {
              // Enough: the status is what counts; the connection is not reused.
              answer.destroy();
              finish({ status, error: undefined, refused: false });
            }
          });
          answer.on('end', () => finish({ status, error: undefined, refused: false }));
          answer.on('error', () => finish({ status, error: undefined, refused: false }));
          answer.on('aborted', () => finish({ status, error: undefined, refused: false }));
        },
      );
      const timer = setTimeout(() => {
        outgoing.destroy();
        finish({ status: undefined, error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`, refused: false });
      }, DELIVERY_TIMEOUT_MS);
      outgoing.on('error', (error: Error & { code?: string }) => {
        if (error instanceof InternalDestination) {
          finish({ status: undefined, error: error.message, refused: true });
          return;
        }
        finish({ status: undefined, error: describeConnectionError(error), refused: false });
      });
      outgoing.end(body);
    });
  }

  close(): void {
    for (const set of [this.agents.private, this.agents.public]) {
      set.http.destroy();
      set.https.destroy();
    }
  }
}

/** Kept-alive connections, separate for the two settings so a socket opened unguarded is never reused guarded. */
function keptAlive<A extends http.Agent>(Agent: new (options: http.AgentOptions) => A, _private: boolean): A {
  return new Agent({ keepAlive: true, maxSockets: 256 });
}

/** A connection failure in words that name no address of ours (the receiver's host is the account's own). */
function describeConnectionError(error: Error & { code?: string }): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host does not resolve';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case undefined:
      return 'connection failed';
    default:
      return `connection failed (${error.code})`;
  }
}
