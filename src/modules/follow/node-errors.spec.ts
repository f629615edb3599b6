import { describeNodeError } from './node-errors';

/** An error as viem's HTTP transport throws it: fetch's TypeError inside, the socket's error inside that. */
function wrapped(code: string | undefined): Error {
  const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), code === undefined ? {} : { code });
  const fetchFailed = new TypeError('fetch failed', { cause: socket });
  return Object.assign(new Error('HTTP request failed.\n\nURL: http://127.0.0.1:8545/'), {
    shortMessage: 'HTTP request failed.',
    cause: fetchFailed,
  });
}

describe('describeNodeError', () => {
  it('names what failed below HTTP, when the message does not', () => {
    expect(describeNodeError(wrapped('ECONNREFUSED'), [])).toBe('HTTP request failed. (the connection was refused)');
    expect(describeNodeError(wrapped('ENOTFOUND'), [])).toBe('HTTP request failed. (the host name did not resolve)');
    expect(describeNodeError(wrapped(undefined), [])).toBe('HTTP request failed.');
  });

  it('never shows a node URL, given or not', () => {
    const url = 'https://user:secret@rpc.example/key123';
    expect(describeNodeError(new Error(`cannot reach ${url} now`), [url])).toBe('cannot reach <rpc url> now');
    expect(describeNodeError(new Error('see http://other.example/x?key=1'), [])).toBe('see <rpc url>');
    expect(describeNodeError('x'.repeat(600), [])).toHaveLength(500);
  });
});
