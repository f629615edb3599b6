/**
 * `call`, shared while it runs: callers that come before it settles get the same answer, the next
 * one after it asks again. For a node's newest state, which a follower's turn asks for twice at
 * once (`mismatch` and `head`).
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
