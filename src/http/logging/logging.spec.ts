import { createLogger, logFormat, NestPinoLogger, redactKeys } from './logging';

describe('redactKeys', () => {
  it('removes every api_key value from a logged URL', () => {
    expect(redactKeys('/v2/tags?api_key=ctk_secret&per_page=2')).toBe('/v2/tags?api_key=[redacted]&per_page=2');
    expect(redactKeys('/v2/x?a=1&API_KEY=ctk_s&api_key=ctk_t')).toBe('/v2/x?a=1&API_KEY=[redacted]&api_key=[redacted]');
    expect(redactKeys('/v2/chains')).toBe('/v2/chains');
  });
});

describe('NestPinoLogger', () => {
  function capture(level: 'info' | 'warn' = 'info') {
    const lines: Record<string, unknown>[] = [];
    const logger = new NestPinoLogger(
      createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }),
    );
    return { logger, lines };
  }

  it('writes the message with the Nest context as `context`', () => {
    const { logger, lines } = capture();
    logger.log('created the first API key ctk_abcdefgh…', 'Keys');
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'created the first API key ctk_abcdefgh…', context: 'Keys' }),
    ]);
  });

  it('merges an object message into the line and takes the next string as the message', () => {
    const { logger, lines } = capture();
    logger.error({ requestId: 'r-1', err: new Error('boom') }, 'unexpected error', 'Errors');
    expect(lines[0]).toMatchObject({ level: 50, msg: 'unexpected error', context: 'Errors', requestId: 'r-1' });
    expect(lines[0]!.err).toMatchObject({ type: 'Error', message: 'boom' });
  });

  it('keeps the stack Nest passes to error() before the context', () => {
    const { logger, lines } = capture();
    logger.error('could not start', 'Error: x\n    at y', 'NestApplication');
    expect(lines[0]).toMatchObject({ msg: 'could not start', stack: 'Error: x\n    at y', context: 'NestApplication' });
  });

  it('writes nothing below the configured level', () => {
    const { logger, lines } = capture('warn');
    logger.log('quiet', 'Keys');
    logger.debug('quieter', 'Keys');
    logger.warn('loud', 'Keys');
    expect(lines.map((line) => line.msg)).toEqual(['loud']);
  });
});

describe('log format', () => {
  it('is readable text only on a terminal outside production', () => {
    expect(logFormat(true, false)).toBe('pretty');
    expect(logFormat(false, false)).toBe('json');
    expect(logFormat(true, true)).toBe('json');
    expect(logFormat(false, true)).toBe('json');
  });

  it('writes a request as one line of text when pretty, with the fields a person looks for', () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void written.push(line) }, 'pretty');
    logger.info(
      {
        req: { id: 'r-1', method: 'GET', url: '/v2/tags?api_key=[redacted]' },
        res: { statusCode: 200 },
        responseTime: 3,
      },
      'request completed',
    );
    new NestPinoLogger(logger).log('listening', 'Bootstrap');
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/INFO.*request completed GET \/v2\/tags\?api_key=\[redacted\] 200 3 ms/);
    expect(written[1]).toMatch(/INFO.*\[Bootstrap\] listening/);
    for (const line of written) expect(() => JSON.parse(line) as unknown).toThrow();
  });

  it('writes JSON lines otherwise', () => {
    const written: string[] = [];
    createLogger('info', { write: (line: string) => void written.push(line) }, 'json').info('hello');
    expect(JSON.parse(written[0]!)).toMatchObject({ level: 30, msg: 'hello' });
  });
});
