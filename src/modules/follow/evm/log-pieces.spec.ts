import { LimitExceededRpcError, RpcRequestError } from 'viem';
import { logsInPieces, piecesByWeight } from './log-pieces';

function refusal(code: number, message: string): Error {
  return new LimitExceededRpcError(
    new RpcRequestError({ body: { method: 'eth_getLogs' }, error: { code, message }, url: 'http://node.invalid' }),
  );
}

/** A provider that serves at most `limit` blocks per query, answering each block's number as its log. */
function provider(limit: bigint, refuse: (from: bigint, to: bigint) => Error) {
  const asked: [bigint, bigint][] = [];
  const query = (from: bigint, to: bigint): Promise<bigint[]> => {
    asked.push([from, to]);
    if (to - from + 1n > limit) return Promise.reject(refuse(from, to));
    const logs: bigint[] = [];
    for (let block = from; block <= to; block++) logs.push(block);
    return Promise.resolve(logs);
  };
  return { asked, query };
}

const range = (from: bigint, to: bigint) => Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));

describe('logsInPieces', () => {
  it('asks once when the provider accepts the whole range', async () => {
    const node = provider(1000n, () => new Error('unexpected'));
    await expect(logsInPieces(node.query, 10n, 19n, 1000n)).resolves.toEqual({ logs: range(10n, 19n), span: 1000n });
    expect(node.asked).toEqual([[10n, 19n]]);
  });

  it('follows the range the provider suggests, then keeps that span', async () => {
    const node = provider(25n, (from) =>
      refusal(
        -32005,
        `query returned more than 10000 results. Try with this block range [0x${from.toString(16)}, 0x${(from + 24n).toString(16)}].`,
      ),
    );
    const result = await logsInPieces(node.query, 0n, 99n, 1000n);
    expect(result).toEqual({ logs: range(0n, 99n), span: 25n });
    expect(node.asked).toEqual([
      [0n, 99n],
      [0n, 24n],
      [25n, 49n],
      [50n, 74n],
      [75n, 99n],
    ]);
  });

  it('halves when the provider names no range, until a piece is accepted', async () => {
    const node = provider(30n, () => refusal(-32600, 'block range is too wide'));
    const result = await logsInPieces(node.query, 1n, 100n, 100n);
    expect(result.logs).toEqual(range(1n, 100n));
    expect(result.span).toBe(25n);
    expect(node.asked.slice(0, 3)).toEqual([
      [1n, 100n],
      [1n, 50n],
      [1n, 25n],
    ]);
  });

  it('propagates a refusal of a single block', async () => {
    const error = refusal(-32005, 'query returned more than 10000 results');
    const node = provider(0n, () => error);
    await expect(logsInPieces(node.query, 5n, 8n, 4n)).rejects.toBe(error);
    expect(node.asked).toEqual([
      [5n, 8n],
      [5n, 6n],
      [5n, 5n],
    ]);
  });

  it('propagates other failures at once', async () => {
    const error = new Error('connection refused');
    const node = provider(0n, () => error);
    await expect(logsInPieces(node.query, 0n, 99n, 100n)).rejects.toBe(error);
    expect(node.asked).toHaveLength(1);
  });

  it('reads nothing for an empty range', async () => {
    const node = provider(10n, () => new Error('unexpected'));
    await expect(logsInPieces(node.query, 5n, 4n, 10n)).resolves.toEqual({ logs: [], span: 10n });
    expect(node.asked).toEqual([]);
  });
});

describe('piecesByWeight', () => {
  it('cuts consecutive blocks where the next one would pass the limit', () => {
    expect(piecesByWeight(100n, [2, 2, 2, 2, 2], 4)).toEqual([
      [100n, 101n],
      [102n, 103n],
      [104n, 104n],
    ]);
    expect(piecesByWeight(0n, [1, 1, 1], 10)).toEqual([[0n, 2n]]);
  });

  it('gives a block heavier than the limit a piece of its own, and empty blocks ride along', () => {
    expect(piecesByWeight(7n, [0, 9, 0, 0, 3, 1], 4)).toEqual([
      [7n, 7n],
      [8n, 10n],
      [11n, 12n],
    ]);
  });

  it('has no piece for no block', () => {
    expect(piecesByWeight(5n, [], 4)).toEqual([]);
  });
});
