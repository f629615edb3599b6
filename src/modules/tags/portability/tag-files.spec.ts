import {
  csvRows,
  isCsvHeader,
  labelToTag,
  ndjsonLine,
  parseCsvLine,
  parseNdjsonLine,
  parseTagPack,
  TagFileEntry,
} from './tag-files';

const EVM_MIXED = '0x52908400098527886E0F7030069857D2E4169EE7';
const EVM = EVM_MIXED.toLowerCase();
const SEGWIT_UPPER = 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4';
const SEGWIT = SEGWIT_UPPER.toLowerCase();
const LEGACY = '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu';

const pairs = (entry: TagFileEntry | undefined) => (entry !== undefined && 'pairs' in entry ? entry.pairs : undefined);
const problem = (entry: TagFileEntry | undefined) =>
  entry !== undefined && 'problem' in entry ? entry.problem : undefined;

describe('tag files', () => {
  describe('NDJSON lines', () => {
    it('read what the export writes, canonicalising the address', () => {
      const line = ndjsonLine(EVM, ['alpha_tag', 'beta_tag']).trimEnd();
      expect(parseNdjsonLine(4, line)).toEqual({
        line: 4,
        pairs: [
          { address: EVM, tag: 'alpha_tag' },
          { address: EVM, tag: 'beta_tag' },
        ],
      });
      expect(pairs(parseNdjsonLine(1, JSON.stringify({ address: EVM_MIXED, tags: ['0'] })))).toEqual([
        { address: EVM, tag: '0' },
      ]);
      expect(ndjsonLine(EVM, [])).toBe(`{"address":"${EVM}","tags":["0"]}\n`);
    });

    it('skip blank lines and name what is wrong with a bad one', () => {
      expect(parseNdjsonLine(1, '   ')).toBeUndefined();
      expect(problem(parseNdjsonLine(1, '{"address":'))).toMatch(/JSON/);
      expect(problem(parseNdjsonLine(1, '[1]'))).toMatch(/JSON object/);
      expect(problem(parseNdjsonLine(1, JSON.stringify({ address: EVM, tag: ['x'] })))).toMatch(/unknown field "tag"/);
      expect(problem(parseNdjsonLine(1, JSON.stringify({ address: EVM, tags: [] })))).toMatch(/non-empty/);
      expect(problem(parseNdjsonLine(1, JSON.stringify({ address: EVM, tags: ['ok_tag', 7] })))).toMatch(/strings/);
      expect(problem(parseNdjsonLine(1, JSON.stringify({ address: 'nope', tags: ['ok_tag'] })))).toMatch(/"nope"/);
      expect(problem(parseNdjsonLine(1, JSON.stringify({ address: EVM, tags: ['Bad Tag'] })))).toMatch(/"Bad Tag"/);
      // EIP-55: a mixed-case address with a wrong checksum is no address.
      const broken = `${EVM_MIXED.slice(0, -1)}e`;
      expect(problem(parseNdjsonLine(1, JSON.stringify({ address: broken, tags: ['ok_tag'] })))).toBeDefined();
    });
  });

  describe('CSV lines', () => {
    it('accept the header in any case and rows with or without quotes', () => {
      expect(isCsvHeader('address,tag')).toBe(true);
      expect(isCsvHeader('"Address","TAG"')).toBe(true);
      expect(isCsvHeader('address,tags')).toBe(false);
      expect(pairs(parseCsvLine(2, `${SEGWIT_UPPER},watch_list`))).toEqual([{ address: SEGWIT, tag: 'watch_list' }]);
      expect(pairs(parseCsvLine(2, `"${LEGACY}","cold_storage"`))).toEqual([{ address: LEGACY, tag: 'cold_storage' }]);
      expect(pairs(parseCsvLine(2, `${EVM},0`))).toEqual([{ address: EVM, tag: '0' }]);
      expect(csvRows(EVM, ['alpha_tag', 'beta_tag'])).toBe(`${EVM},alpha_tag\n${EVM},beta_tag\n`);
      expect(csvRows(EVM, [])).toBe(`${EVM},0\n`);
    });

    it('refuse rows with the wrong number of fields, broken quotes or bad values', () => {
      expect(parseCsvLine(3, '')).toBeUndefined();
      expect(problem(parseCsvLine(3, EVM))).toMatch(/2 fields/);
      expect(problem(parseCsvLine(3, `${EVM},alpha_tag,extra`))).toMatch(/found 3/);
      expect(problem(parseCsvLine(3, `"${EVM},alpha_tag`))).toMatch(/quotes/);
      expect(problem(parseCsvLine(3, `"${EVM}"x,alpha_tag`))).toMatch(/quotes/);
      expect(problem(parseCsvLine(3, `${EVM},abc`))).toMatch(/not a tag/);
      expect(problem(parseCsvLine(3, `0x1234,alpha_tag`))).toMatch(/"0x1234"/);
    });
  });

  describe('TagPack labels', () => {
    it.each([
      ['Binance', 'binance'],
      ['Kraken Exchange: Hot Wallet #3', 'kraken_exchange_hot_wallet_3'],
      ['  --Café Société--  ', 'cafe_societe'],
      ['already_ok_name', 'already_ok_name'],
      ['x'.repeat(70), 'x'.repeat(64)],
      [`${'a'.repeat(63)} b`, 'a'.repeat(63)],
    ])('%j becomes %j', (label, tag) => {
      expect(labelToTag(label)).toBe(tag);
    });

    it.each(['OKX', '!!!', '', 'a b', '0'])('%j makes no tag name', (label) => {
      expect(labelToTag(label)).toBeUndefined();
    });
  });

  describe('TagPacks', () => {
    const pack = [
      'title: Example TagPack', // 1
      'creator: chaintags tests', // 2
      'currency: BTC', // 3
      'category: exchange', // 4
      'tags:', // 5
      `  - address: ${LEGACY}`, // 6
      '    label: Some Exchange', // 7
      `  - address: ${EVM_MIXED}`, // 8
      '    currency: eth', // 9
      '    label: Some Exchange', // 10
      '  - address: LTC1qsomething', // 11
      '    currency: LTC', // 12
      '    label: Litecoin thing', // 13
      `  - address: ${EVM}`, // 14
      '    label: Wrong chain', // 15
      `  - address: ${SEGWIT}`, // 16
      '    label: OKX', // 17
      `  - address: ${SEGWIT}`, // 18
      '    label: "Hot wallet"', // 19
    ].join('\n');

    it('inherit header fields, override them per tag, skip other currencies and name bad entries by line', () => {
      expect(parseTagPack(pack)).toEqual([
        { line: 6, pairs: [{ address: LEGACY, tag: 'some_exchange' }] },
        { line: 8, pairs: [{ address: EVM, tag: 'some_exchange' }] },
        { line: 11, skipped: expect.stringMatching(/LTC/) },
        { line: 14, problem: expect.stringMatching(/not a BTC address/) },
        { line: 16, problem: expect.stringMatching(/label "OKX" makes no tag name/) },
        { line: 18, pairs: [{ address: SEGWIT, tag: 'hot_wallet' }] },
      ]);
    });

    it('need label, address and currency somewhere', () => {
      const entries = parseTagPack(['label: Everything here', 'tags:', `  - address: ${LEGACY}`].join('\n'));
      expect(entries).toEqual([{ line: 3, problem: expect.stringMatching(/missing currency/) }]);
    });

    it('refuse what is no TagPack, with the line where it shows', () => {
      expect(parseTagPack('tags: [unclosed')[0]).toEqual({
        line: expect.any(Number),
        problem: expect.stringMatching(/YAML/),
      });
      expect(parseTagPack('- just\n- a list')[0]?.line).toBe(1);
      expect(problem(parseTagPack('title: no tags\n')[0])).toMatch(/"tags" list/);
      expect(parseTagPack('tags:\n  - plain string\n')).toEqual([
        { line: 2, problem: expect.stringMatching(/mapping/) },
      ]);
    });
  });
});
