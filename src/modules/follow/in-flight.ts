/**
 * `call`, shared while it runs: callers that come before it settles get the same answer, the next
 * one after it asks again. For what several callers ask at once: a node's newest state in a
 * follower's turn (`mismatch` and `head`), the followers' rows for a scrape's gauges.
 */
export function sharedWhileInFlight<T>(call: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => {
    running ??= call().finally(() => {
      running = undefined;
    });
    return running;
  };
}
