import autocannon from 'autocannon';

export interface LoadOptions {
  port: number;
  /** Request paths, sent in this order and round again. */
  paths: readonly string[];
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  /** Stop after this many requests instead of after `seconds`. */
  amount?: number;
  /** Return every 2xx latency too (`latenciesMs`), so that windows can be pooled. */
  keepLatencies?: boolean;
  /**
   * The endpoint a path belongs to: the answers are then also counted per endpoint (`byEndpoint`),
   * from the same load (same connections, same order of paths).
   */
  endpointOf?: (path: string) => string;
}

/** One endpoint's share of a load: its answers and their latencies, in milliseconds. */
export interface EndpointShare {
  /** Answers of this endpoint, 2xx or not (connection errors belong to no endpoint). */
  requests: number;
  /** 2xx answers of this endpoint per second of the whole load. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Latencies of the 2xx answers, in milliseconds. */
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** Mean size of the 2xx answers in bytes, headers included: how much each answer carries. */
  bytesPerAnswer: number;
  /** CPU time the server spent per answer (user + system), in milliseconds; set by the caller. */
  cpuMsPerRequest?: number;
  /** The 2xx latencies, sorted, with `keepLatencies`. */
  latenciesMs?: number[];
  /** With `endpointOf`: the answers of each endpoint. */
  byEndpoint?: Record<string, EndpointShare>;
}

/**
 * Drives one server with autocannon: a fixed number of connections for a fixed time, each request
 * taking the next path of the list. Latencies are kept exactly (autocannon's own histogram rounds
 * them to whole milliseconds, too coarse for answers that take one or two).
 *
 * With `endpointOf`, each request's path rides in its connection's context: autocannon hands that
 * context to `onResponse` for the answer and then, in the same turn, emits `response` with its
 * latency, so each latency is counted for the endpoint of the request it answers.
 */
export async function drive(options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const latencies: number[] = [];
  let non2xx = 0;
  let answerBytes = 0;
  const { endpointOf } = options;
  const shares = new Map<string, { latencies: number[]; non2xx: number }>();
  let answeredPath: string | undefined;
  const instance = autocannon({
    url: `http://127.0.0.1:${options.port}`,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.seconds } : { amount: options.amount }),
    timeout: 30,
    headers: options.headers,
    requests: [
      {
        setupRequest: (request, context) => {
          request.path = options.paths[next % options.paths.length];
          context.path = request.path;
          next += 1;
          return request;
        },
        ...(endpointOf === undefined
          ? {}
          : {
              onResponse: (_status: number, _body: string, context: Record<string, unknown>) => {
                answeredPath = context.path as string;
              },
            }),
      },
    ],
  });
  instance.on('response', (_client: unknown, status: number, bytes: number, milliseconds: number) => {
    const ok = status >= 200 && status < 300;
    if (ok) {
      latencies.push(milliseconds);
      answerBytes += bytes;
    } else non2xx += 1;
    if (endpointOf === undefined) return;
    const endpoint = answeredPath === undefined ? 'unknown' : endpointOf(answeredPath);
    answeredPath = undefined;
    let share = shares.get(endpoint);
    if (share === undefined) {
      share = { latencies: [], non2xx: 0 };
      shares.set(endpoint, share);
    }
    if (ok) share.latencies.push(milliseconds);
    else share.non2xx += 1;
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const requests = latencies.length + non2xx;
  const byEndpoint =
    endpointOf === undefined
      ? undefined
      : Object.fromEntries(
          [...shares].map(([endpoint, share]): [string, EndpointShare] => {
            share.latencies.sort((a, b) => a - b);
            return [
              endpoint,
              {
                requests: share.latencies.length + share.non2xx,
                rps: share.latencies.length / result.duration,
                p50: percentile(share.latencies, 0.5),
                p99: percentile(share.latencies, 0.99),
                max: share.latencies[share.latencies.length - 1] ?? NaN,
                non2xx: share.non2xx,
              },
            ];
          }),
        );
  return {
    requests,
    seconds: result.duration,
    rps: latencies.length / result.duration,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    non2xx,
    errors: result.errors,
    bytesPerAnswer: latencies.length === 0 ? NaN : answerBytes / latencies.length,
    ...(options.keepLatencies ? { latenciesMs: latencies } : {}),
    ...(byEndpoint === undefined ? {} : { byEndpoint }),
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
