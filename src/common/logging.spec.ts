import { loggerParams, redactKeys } from './logging';

describe('redactKeys', () => {
  it('removes every api_key value from a logged URL', () => {
    expect(redactKeys('/v2/tags?api_key=ctk_secret&per_page=2')).toBe('/v2/tags?api_key=[redacted]&per_page=2');
    expect(redactKeys('/v2/x?a=1&API_KEY=ctk_s&api_key=ctk_t')).toBe('/v2/x?a=1&API_KEY=[redacted]&api_key=[redacted]');
    expect(redactKeys('/v2/chains')).toBe('/v2/chains');
  });
});

describe('request log serializers', () => {
  const serializers = (loggerParams('info').pinoHttp as { serializers: Record<string, (value: unknown) => unknown> })
    .serializers;

  it('log the method and a redacted URL, never headers', () => {
    const logged = serializers.req!({
      id: 'r1',
      method: 'GET',
      url: '/v2/tags?api_key=ctk_secretsecretsecretsecret',
      headers: { 'x-api-key': 'ctk_otherothersecretother' },
    });
    expect(logged).toEqual({ id: 'r1', method: 'GET', url: '/v2/tags?api_key=[redacted]' });
    expect(JSON.stringify(logged)).not.toContain('ctk_');
  });
});
