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
  /** CPU time the server spent per answer (user + system), in milliseconds; set by the caller. */
  cpuMsPerRequest?: number;
  /** The 2xx latencies, sorted, with `keepLatencies`. */
  latenciesMs?: number[];
}

/**
 * Drives one server with autocannon: a fixed number of connections for a fixed time, each request
 * taking the next path of the list. Latencies are kept exactly (autocannon's own histogram rounds
 * them to whole milliseconds, too coarse for answers that take one or two).
 */
export async function drive(options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const latencies: number[] = [];
  let non2xx = 0;
  const instance = autocannon({
    url: `http://127.0.0.1:${options.port}`,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.seconds } : { amount: options.amount }),
    timeout: 30,
    headers: options.headers,
    requests: [
      {
        setupRequest: (request) => {
          request.path = options.paths[next % options.paths.length];
          next += 1;
          return request;
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
    if (status >= 200 && status < 300) latencies.push(milliseconds);
    else non2xx += 1;
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const requests = latencies.length + non2xx;
  return {
    requests,
    seconds: result.duration,
    rps: latencies.length / result.duration,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    non2xx,
    errors: result.errors,
    ...(options.keepLatencies ? { latenciesMs: latencies } : {}),
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
