import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ApiError } from '../../core/errors';
import { parseWebhookInput } from './dto/webhook-input';
import { idempotencyKey, requestFingerprint } from './idempotency';
import { SUBSCRIBABLE_EVENTS } from './webhook-events';

// At most 12 characters: the changes below add a tag of 13, which no drawn body has.
const tagName = fc.stringMatching(/^[a-z0-9_]{5,12}$/);
const chains = fc.subarray(['ethereum', 'bitcoin', 'base', 'solana', 'ton'], { minLength: 1 });
const body = fc.record(
  {
    url: fc.constantFrom('https://hooks.example.com/a', 'http://127.0.0.1:9/b'),
    tags: fc.uniqueArray(tagName, { minLength: 1, maxLength: 6 }),
    chains,
    events: fc.subarray([...SUBSCRIBABLE_EVENTS], { minLength: 1 }),
    description: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
    min_value_usd: fc.option(fc.double({ min: 0, max: 1e12, noNaN: true }), { nil: null }),
    tokens: fc.option(fc.uniqueArray(fc.constantFrom('tether', 'usd-coin', 'ethereum', 'bitcoin'), { minLength: 1 }), {
      nil: null,
    }),
  },
  { requiredKeys: ['url', 'tags'] },
);

const fingerprintOf = (value: unknown) => requestFingerprint(parseWebhookInput(value, 'create'));

describe('requestFingerprint', () => {
  it('is the same for a body spelled otherwise: fields in another order, lists shuffled or repeated, defaults written out', () => {
    fc.assert(
      fc.property(body, fc.infiniteStream(fc.nat()), (fields, random) => {
        const shuffle = <T>(items: readonly T[]) =>
          items
            .map((item) => ({ item, key: random.next().value as number }))
            .sort((a, b) => a.key - b.key)
            .map(({ item }) => item);
        const respelled: Record<string, unknown> = {};
        for (const key of shuffle(Object.keys(fields))) respelled[key] = fields[key as keyof typeof fields];
        respelled.tags = shuffle([...fields.tags, fields.tags[0]!]);
        if (fields.chains !== undefined) respelled.chains = shuffle([...fields.chains, fields.chains[0]!]);
        respelled.events = shuffle(fields.events ?? SUBSCRIBABLE_EVENTS);
        if (fields.description === undefined) respelled.description = null;
        if (fields.min_value_usd === undefined) respelled.min_value_usd = null;
        if (Array.isArray(fields.tokens)) respelled.tokens = shuffle([...fields.tokens, fields.tokens[0]!]);
        if (fields.tokens === undefined) respelled.tokens = null;
        expect(fingerprintOf(respelled)).toBe(fingerprintOf(fields));
      }),
    );
  });

  it('differs when any field differs after its checks', () => {
    const changes: ((fields: Record<string, unknown>) => Record<string, unknown>)[] = [
      (fields) => ({ ...fields, url: `${String(fields.url)}/other` }),
      (fields) => ({ ...fields, tags: [...(fields.tags as string[]), 'thirteen_long'] }),
      (fields) => ({
        ...fields,
        tags: (fields.tags as string[]).length > 1 ? (fields.tags as string[]).slice(1) : ['thirteen_long'],
      }),
      (fields) => ({ ...fields, chains: fields.chains === undefined ? ['bnb'] : null }),
      (fields) => ({ ...fields, chains: [...((fields.chains as string[] | undefined) ?? ['ethereum']), 'aptos'] }),
      (fields) => ({
        ...fields,
        events: (fields.events as string[] | undefined)?.length === 1 ? undefined : ['transaction.removed'],
      }),
      (fields) => ({ ...fields, description: `${(fields.description as string | null | undefined) ?? ''}!` }),
      (fields) => ({ ...fields, min_value_usd: typeof fields.min_value_usd === 'number' ? null : 1000 }),
      (fields) => ({ ...fields, tokens: Array.isArray(fields.tokens) ? null : ['tether'] }),
      (fields) => ({
        ...fields,
        tokens: [...((fields.tokens as string[] | null | undefined) ?? ['bitcoin']), 'aptos'],
      }),
    ];
    fc.assert(
      fc.property(body, fc.nat({ max: changes.length - 1 }), (fields, which) => {
        const changed = changes[which]!(fields);
        expect(fingerprintOf(changed)).not.toBe(fingerprintOf(fields));
      }),
    );
  });
});

it('keeps the fingerprint of a creation without min_value_usd as it was before the field existed', () => {
  // What was stored for a creation made before the field (its canonical fields, as they were
  // then): a retry of it after the upgrade is still the same request.
  const before = (fields: object) => createHash('sha256').update(JSON.stringify(fields)).digest('hex');
  const events = [...SUBSCRIBABLE_EVENTS];
  expect(fingerprintOf({ url: 'https://hooks.example.com/a', tags: ['watched'], min_value_usd: null })).toBe(
    before({ url: 'https://hooks.example.com/a', tags: ['watched'], chains: null, events, description: null }),
  );
  expect(fingerprintOf({ url: 'https://hooks.example.com/a', tags: ['watched'], min_value_usd: 5 })).not.toBe(
    before({ url: 'https://hooks.example.com/a', tags: ['watched'], chains: null, events, description: null }),
  );
});

describe('idempotencyKey', () => {
  it('takes 1 to 255 visible ASCII characters as they are, and no header as none', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
          minLength: 1,
          maxLength: 255,
        }),
        (key) => {
          expect(idempotencyKey(key)).toBe(key);
        },
      ),
    );
    expect(idempotencyKey(undefined)).toBeUndefined();
  });

  it('refuses an empty key, a longer one, and one with a space, a control or a non-ASCII character', () => {
    for (const key of ['', 'k'.repeat(256), 'a b', 'tab\there', 'caf\u00e9', 'line\nbreak', '\u007f']) {
      expect(() => idempotencyKey(key)).toThrow(ApiError);
      try {
        idempotencyKey(key);
      } catch (error) {
        expect((error as ApiError).code).toBe('BAD_REQUEST');
      }
    }
  });
});
