import { encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check, hex } from '@scure/base';
import fc from 'fast-check';

import { parseAddress } from './address-parser';
import { addressOfScript, cashAddressTwins, outputScriptOf } from './output-script';

const base58check = createBase58check(sha256);
const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });

describe('outputScriptOf and addressOfScript', () => {
  // BIP-173 and BIP-350 "Test vectors" sections: the mainnet addresses with their scriptPubKey.
  it.each([
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    [
      'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
      '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
    ],
    ['BC1SW50QGDZ25J', '6002751e'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
    [
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    ],
  ])('pays SegWit address %s to the script of BIP-173/BIP-350', (address, script) => {
    expect(outputScriptOf('bitcoin', address)).toBe(script);
    expect(outputScriptOf('bitcoincash', address)).toBeUndefined();
    expect(outputScriptOf('dogecoin', address)).toBeUndefined();
  });

  it('names only witness v0 and Taproot outputs, lowercase', () => {
    expect(addressOfScript('bitcoin', '0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    expect(addressOfScript('bitcoin', '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798')).toBe(
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    );
    // Witness v1 of 40 bytes, v16 and v2: valid addresses, but not output types chaintags names.
    expect(
      addressOfScript(
        'bitcoin',
        '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
      ),
    ).toBeUndefined();
    expect(addressOfScript('bitcoin', '6002751e')).toBeUndefined();
    expect(addressOfScript('bitcoin', '5210751e76e8199196d454941c45d1b3a323')).toBeUndefined();
    // A witness program on the other chains is no address there.
    expect(addressOfScript('bitcoincash', '0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBeUndefined();
    expect(addressOfScript('dogecoin', '0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBeUndefined();
  });

  // Dogecoin Core's src/test/data/base58_keys_valid.json: mainnet addresses with the hash they carry.
  it.each([
    ['DD4KSSuBJqcjuTcvUg1CgUKeurPUFeEZkE', '76a91456d9b1d684d5abef32134ebc6883d75d3a53e9be88ac'],
    ['DBjW6kna7rUPE4Mj9j4B3oK3xVA1SDHrdt', '76a914485290865b407657e0aedbdbb4aa6618310af50d88ac'],
    ['A7HRQk3GFCW2QasvdZxXuYj8kkQK5QrYLs', 'a914a2dd71f34fe73314d6e37c44035513f203aa400b87'],
    ['9zYnVRaekPtdKBYuPw5QiBtv3NNrzD2LLW', 'a91458fc66bf64b3c8d8accd80110bb6df6c1373593787'],
  ])('pays Dogecoin address %s to %s and back', (address, script) => {
    expect(outputScriptOf('dogecoin', address)).toBe(script);
    expect(addressOfScript('dogecoin', script)).toBe(address);
    expect(outputScriptOf('bitcoin', address)).toBeUndefined();
    expect(outputScriptOf('bitcoincash', address)).toBeUndefined();
  });

  // The CashAddr specification (bitcoincash.org spec/cashaddr.md, "Examples of address translation").
  const cashAddrExamples: [string, string][] = [
    ['1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['1KXrWXciRDZUpQwQmuM1DbwsKDLYAYsVLR', 'bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy'],
    ['16w1D5WRVKJuZUsSRzdLp9w3YGcgoxDXb', 'bitcoincash:qqq3728yw0y47sqn6l2na30mcw6zm78dzqre909m2r'],
    ['3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC', 'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq'],
    ['3LDsS579y7sruadqu11beEJoTjdFiFCdX4', 'bitcoincash:pr95sy3j9xwd2ap32xkykttr4cvcu7as4yc93ky28e'],
    ['31nwvkZwyPdgzjBJZXfDmSWsC4ZLKpYyUw', 'bitcoincash:pqq3728yw0y47sqn6l2na30mcw6zm78dzq5ucqzc37'],
  ];

  it.each(cashAddrExamples)('gives legacy %s and CashAddr %s one script on bitcoincash', (legacy, cash) => {
    const script = outputScriptOf('bitcoincash', legacy);
    expect(script).toMatch(/^(76a914[0-9a-f]{40}88ac|a914[0-9a-f]{40}87)$/);
    expect(outputScriptOf('bitcoincash', cash)).toBe(script);
    expect(outputScriptOf('bitcoincash', cash.toUpperCase().slice('BITCOINCASH:'.length))).toBe(script);
    expect(outputScriptOf('bitcoin', legacy)).toBe(script);
    expect(outputScriptOf('bitcoin', cash)).toBeUndefined();
    expect(addressOfScript('bitcoincash', script!)).toBe(cash);
    expect(addressOfScript('bitcoin', script!)).toBe(legacy);
    expect(cashAddressTwins(legacy)).toEqual([legacy, cash]);
    expect(cashAddressTwins(cash)).toEqual([legacy, cash]);
    expect(cashAddressTwins(cash.slice('bitcoincash:'.length).toUpperCase())).toEqual([legacy, cash]);
  });

  it('knows the P2PKH and P2SH script templates byte for byte', () => {
    // 1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu carries hash160 76a04053bda0a88bda5177b86a15c3b29f559873.
    expect(outputScriptOf('bitcoin', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu')).toBe(
      '76a91476a04053bda0a88bda5177b86a15c3b29f55987388ac',
    );
    expect(outputScriptOf('bitcoin', '3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC')).toBe(
      'a91476a04053bda0a88bda5177b86a15c3b29f55987387',
    );
  });

  it('maps a pay-to-pubkey output to the P2PKH address of its key, as explorers show it', () => {
    // Block 1's coinbase output: the uncompressed key whose P2PKH address is 12c6DSiU4Rq3P4ZxziKxzrL5LmMBrzjrJX.
    const uncompressed =
      '410496b538e853519c726a2c91e61ec11600ae1390813a627c66fb8be7947be63c52da7589379515d4e0a604f8141781e62294721166bf621e73a82cbf2342c858eeac';
    expect(addressOfScript('bitcoin', uncompressed)).toBe('12c6DSiU4Rq3P4ZxziKxzrL5LmMBrzjrJX');
    expect(addressOfScript('bitcoin', uncompressed.toUpperCase())).toBe('12c6DSiU4Rq3P4ZxziKxzrL5LmMBrzjrJX');
    expect(addressOfScript('bitcoincash', uncompressed)).toBe(
      cashAddressTwins('12c6DSiU4Rq3P4ZxziKxzrL5LmMBrzjrJX')[1],
    );
    // The generator point G, compressed: its P2PKH address is well known.
    const compressed = '210279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ac';
    expect(addressOfScript('bitcoin', compressed)).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
    // A header byte that does not fit the key's length is not a key.
    expect(addressOfScript('bitcoin', `2104${compressed.slice(4)}`)).toBeUndefined();
  });

  it.each([
    ['OP_RETURN', '6a0b68656c6c6f20776f726c64'],
    [
      'bare 1-of-2 multisig',
      '5121030000000000000000000000000000000000000000000000000000000000000001210300000000000000000000000000000000000000000000000000000000000000025' +
        '2ae',
    ],
    ['empty', ''],
    ['odd hex', '76a9'.slice(0, 3)],
    ['not hex', 'zz'],
    ['P2PKH with a trailing byte', '76a91476a04053bda0a88bda5177b86a15c3b29f55987388ac00'],
    ['witness push shorter than the script', '0014751e76e8199196d454941c45d1b3a323f1433b'],
    ['witness program of one byte', '600101'],
  ])('gives no address for %s', (_, script) => {
    for (const chain of ['bitcoin', 'bitcoincash', 'dogecoin'] as const) {
      expect(addressOfScript(chain, script)).toBeUndefined();
    }
  });

  it('handles Bitcoin Cash P2SH32', () => {
    const hash = '11'.repeat(32);
    const cash = encodeCashAddress({ payload: hex.decode(hash), type: 'p2sh' }).address;
    expect(outputScriptOf('bitcoincash', cash)).toBe(`aa20${hash}87`);
    expect(addressOfScript('bitcoincash', `aa20${hash}87`)).toBe(cash);
    expect(addressOfScript('bitcoin', `aa20${hash}87`)).toBeUndefined();
    expect(cashAddressTwins(cash)).toEqual([cash]);
  });

  it('refuses addresses that are not valid on the chain, and chains outside the Bitcoin family', () => {
    expect(outputScriptOf('bitcoin', 'DD4KSSuBJqcjuTcvUg1CgUKeurPUFeEZkE')).toBeUndefined();
    expect(outputScriptOf('bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBeUndefined();
    expect(outputScriptOf('bitcoin', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggv')).toBeUndefined();
    expect(outputScriptOf('ethereum', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu')).toBeUndefined();
    expect(addressOfScript('ethereum', '76a91476a04053bda0a88bda5177b86a15c3b29f55987388ac')).toBeUndefined();
    expect(outputScriptOf('bitcoin', 'not an address')).toBeUndefined();
  });

  it('gives the address itself as its only twin outside legacy and CashAddr', () => {
    expect(cashAddressTwins('DD4KSSuBJqcjuTcvUg1CgUKeurPUFeEZkE')).toEqual(['DD4KSSuBJqcjuTcvUg1CgUKeurPUFeEZkE']);
    expect(cashAddressTwins('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toEqual([
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    ]);
    expect(cashAddressTwins('whatever')).toEqual(['whatever']);
  });
});

describe('round trips', () => {
  const canonical = (input: string) => {
    const parsed = parseAddress(input);
    if (!parsed.ok) throw new Error(`${input}: ${parsed.reason}`);
    return parsed.address.canonical;
  };

  const base58 = (version: number) => bytes(20).map((hash) => base58check.encode(Uint8Array.from([version, ...hash])));
  const segwit = fc.oneof(fc.tuple(fc.constant(0), fc.constantFrom(20, 32)), fc.tuple(fc.constant(1), fc.constant(32)));
  const segwitAddress = segwit.chain(([version, length]) =>
    bytes(length).map((program) => {
      const coder = version === 0 ? bech32 : bech32m;
      return coder.encode('bc', [version, ...coder.toWords(program)]);
    }),
  );
  const cashAddress = fc
    .tuple(fc.constantFrom('p2pkh' as const, 'p2sh' as const), bytes(20))
    .map(([type, payload]) => encodeCashAddress({ payload, type }).address);

  const cases = [
    ['bitcoin', fc.oneof(base58(0x00), base58(0x05), segwitAddress)],
    ['bitcoincash', cashAddress],
    ['dogecoin', fc.oneof(base58(0x1e), base58(0x16))],
  ] as const;

  it.each(cases)('addressOfScript(outputScriptOf(a)) is a on %s', (chain, addresses) => {
    fc.assert(
      fc.property(addresses, (address) => {
        const script = outputScriptOf(chain, address);
        expect(script).toBeDefined();
        expect(addressOfScript(chain, script!)).toBe(canonical(address));
      }),
    );
  });

  it('a legacy address and its CashAddr twin pay to one script on bitcoincash', () => {
    fc.assert(
      fc.property(fc.oneof(base58(0x00), base58(0x05)), (legacy) => {
        const twins = cashAddressTwins(legacy);
        expect(twins).toHaveLength(2);
        expect(twins[0]).toBe(legacy);
        expect(outputScriptOf('bitcoincash', twins[1]!)).toBe(outputScriptOf('bitcoincash', legacy));
        expect(cashAddressTwins(twins[1]!)).toEqual(twins);
      }),
    );
  });

  it('outputScriptOf(addressOfScript(s)) is s for every standard script it names', () => {
    const script = fc.oneof(
      bytes(20).map((hash) => `76a914${hex.encode(hash)}88ac`),
      bytes(20).map((hash) => `a914${hex.encode(hash)}87`),
      bytes(20).map((hash) => `0014${hex.encode(hash)}`),
      bytes(32).map((hash) => `0020${hex.encode(hash)}`),
      bytes(32).map((hash) => `5120${hex.encode(hash)}`),
    );
    fc.assert(
      fc.property(
        script,
        fc.constantFrom('bitcoin' as const, 'bitcoincash' as const, 'dogecoin' as const),
        (s, chain) => {
          const address = addressOfScript(chain, s);
          const witness = !s.startsWith('76') && !s.startsWith('a9');
          if (witness && chain !== 'bitcoin') return expect(address).toBeUndefined();
          expect(address).toBeDefined();
          expect(outputScriptOf(chain, address!)).toBe(s);
        },
      ),
    );
  });
});
