import { sha256 } from '@noble/hashes/sha2.js';
import { base58, createBase58check } from '@scure/base';
import { decodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { Address } from '@ton/core';

import { CHAIN_IDS, ChainId } from '../chains/chain-ids';
import { AddressParseResult, ParsedAddress } from './address-families';
import { canonicalAddressOnChain, isAddressOnChain, NOT_AN_ADDRESS, parseAddress } from './address-parser';

const EVM_CHAINS: ChainId[] = ['ethereum', 'bnb', 'polygon', 'arbitrum', 'optimism', 'base'];

function parsed(input: string): ParsedAddress {
  const result = parseAddress(input);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(input)} to parse, got: ${result.reason}`);
  return result.address;
}

function reasonFor(result: AddressParseResult): string {
  if (result.ok) throw new Error(`expected a rejection, got ${result.address.canonical}`);
  return result.reason;
}

function rejection(input: string): string {
  return reasonFor(parseAddress(input));
}

describe('parseAddress input guards', () => {
  it('rejects the empty string', () => {
    expect(rejection('')).toBe('address is empty');
  });

  it('rejects inputs longer than 128 characters before decoding them', () => {
    expect(rejection('1'.repeat(129))).toBe('address is longer than 128 characters');
    expect(rejection(`0x${'a'.repeat(10_000)}`)).toBe('address is longer than 128 characters');
  });

  it.each([
    ' 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed ',
    '\t1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu',
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\n',
    '\u00a0bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  ])('rejects surrounding whitespace instead of trimming it: %j', (input) => {
    expect(rejection(input)).toBe('address must not have leading or trailing whitespace');
  });

  it('rejects non-ASCII characters, including ones that case-fold onto valid letters', () => {
    // U+212A KELVIN SIGN lower-cases to "k"; the CashAddr decoder folds case, so without the ASCII gate this
    // look-alike of a valid address would be accepted.
    const valid = 'bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy';
    const kelvin = valid.toUpperCase().replace(/K/g, '\u212a');
    expect(kelvin.toLowerCase()).toBe(valid);
    expect(rejection(kelvin)).toBe('address contains a character that no supported address uses');
    expect(rejection('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaеd')).toMatch(/character/); // Cyrillic "е"
  });

  it('rejects inner whitespace and control characters', () => {
    expect(rejection('0x5aaeb6053f3e94c9b9a09f33 669435e7ef1beaed')).toMatch(/character/);
    expect(rejection('1BpEi6DfDAUFd7GtittLS\u0000dBeYJvcoaVggu')).toMatch(/character/);
  });

  it('rejects a non-string passed from untyped code', () => {
    expect(rejection(42 as unknown as string)).toBe('address must be a string');
  });

  it.each(['hello', '0', 'foo:bar', '::', 'x'.repeat(128), 'bitcoin:1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu'])(
    'gives the generic reason for %j',
    (input) => {
      expect(rejection(input)).toBe(NOT_AN_ADDRESS);
    },
  );
});

describe('EVM addresses (EIP-55)', () => {
  // The test cases listed in EIP-55 itself.
  const eip55Vectors = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it.each(eip55Vectors)('accepts %s and stores it lowercase on the six EVM chains', (vector) => {
    expect(parsed(vector)).toEqual({ canonical: vector.toLowerCase(), family: 'evm', chains: EVM_CHAINS });
  });

  it.each(eip55Vectors)('gives %s in lowercase and uppercase the same canonical form', (vector) => {
    const lower = vector.toLowerCase();
    const upper = `0x${vector.slice(2).toUpperCase()}`;
    expect(parsed(lower).canonical).toBe(lower);
    expect(parsed(upper).canonical).toBe(lower);
  });

  it('rejects an EIP-55 vector with the case of one letter flipped', () => {
    expect(rejection('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe('EIP-55 checksum mismatch');
    expect(rejection('0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359')).toBe('EIP-55 checksum mismatch');
  });

  it('lists the EVM chains in CHAIN_IDS order', () => {
    const chains = parsed('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed').chains;
    expect(chains).toEqual(CHAIN_IDS.filter((chain) => EVM_CHAINS.includes(chain)));
  });

  it.each([
    ['0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /lowercase "0x"/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe', /40 \(EVM\) or 64/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd', /40 \(EVM\) or 64/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg', /non-hex/],
    ['0x', /40 \(EVM\) or 64/],
  ])('rejects malformed hex %s', (input, reason) => {
    expect(rejection(input)).toMatch(reason);
  });
});

describe('Sui/Aptos addresses', () => {
  const suiFramework = '0x0000000000000000000000000000000000000000000000000000000000000002';
  const mixedCase = '0xDBA34672E30CB065B1F93E3AB55318768FD6FEF66C15942C9F7CB846E2F900e7';

  it('accepts 0x + 64 hex on sui and aptos', () => {
    expect(parsed(suiFramework)).toEqual({ canonical: suiFramework, family: 'move', chains: ['sui', 'aptos'] });
  });

  it('lowercases any case', () => {
    expect(parsed(mixedCase).canonical).toBe(mixedCase.toLowerCase());
  });

  it('rejects short forms and 63/65 digits', () => {
    expect(parseAddress('0x2').ok).toBe(false);
    expect(parseAddress(suiFramework.slice(0, -1)).ok).toBe(false);
    expect(parseAddress(`${suiFramework}0`).ok).toBe(false);
  });
});

describe('Bitcoin SegWit addresses (BIP-173, BIP-350)', () => {
  it('accepts the BIP-173 mainnet P2WPKH vector, either case, stored lowercase', () => {
    const expected = {
      canonical: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      family: 'bitcoin_segwit',
      chains: ['bitcoin'],
    };
    expect(parsed('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toEqual(expected);
    expect(parsed('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toEqual(expected);
  });

  // BIP-350's valid mainnet vectors: v1 40-byte program, v16, v2, and a Taproot (v1, 32-byte) output.
  it.each([
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
    'BC1SW50QGDZ25J',
    'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
  ])('accepts BIP-350 vector %s', (vector) => {
    expect(parsed(vector)).toEqual({ canonical: vector.toLowerCase(), family: 'bitcoin_segwit', chains: ['bitcoin'] });
  });

  // BIP-173 listed these v1+ addresses with bech32 checksums; BIP-350 made them invalid.
  it.each([
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx',
    'BC1SW50QA3JX3S',
    'bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd',
    'BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL',
  ])('rejects witness v1+ encoded with bech32: %s', (vector) => {
    expect(rejection(vector)).toMatch(/must use bech32m, not bech32$/);
  });

  it('rejects witness v0 encoded with bech32m (BIP-350)', () => {
    expect(rejection('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh')).toBe(
      'witness v0 address must use bech32, not bech32m',
    );
  });

  it.each([
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'bech32 checksum mismatch'],
    ['BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2', 'invalid witness version 17'],
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'invalid witness version 17'],
    ['bc1rw5uspcuh', 'witness program must be 2 to 40 bytes, got 1'],
    ['bc1pw5dgrnzv', 'witness program must be 2 to 40 bytes, got 1'],
    [
      'bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90',
      'witness program must be 2 to 40 bytes, got 41',
    ],
    [
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
      'witness program must be 2 to 40 bytes, got 41',
    ],
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'witness v0 program must be 20 or 32 bytes, got 16'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du', 'witness program has invalid padding'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'witness program has invalid padding'],
    ['bc1gmk9yu', 'SegWit address has an empty data section'],
    ['bc1', 'bech32 address is too short to hold a checksum'],
    [
      'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
      'bech32 address contains a character outside the bech32 alphabet',
    ],
  ])('rejects BIP-173/BIP-350 invalid vector %s', (vector, reason) => {
    expect(rejection(vector)).toBe(reason);
  });

  it('rejects the invalid-HRP vectors', () => {
    expect(parseAddress('tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty').ok).toBe(false);
    expect(parseAddress('tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut').ok).toBe(false);
  });

  it.each([
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy',
    'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
  ])('rejects the valid testnet vector %s as not mainnet', (vector) => {
    expect(rejection(vector)).toBe('only mainnet (bc1) SegWit addresses are supported');
  });

  it.each([
    'bc1qW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3t4',
    'Bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7',
    'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq',
  ])('rejects mixed-case bech32 %s', (vector) => {
    expect(rejection(vector)).toBe('bech32 address must not mix upper and lower case');
  });
});

describe('Bitcoin Cash CashAddr', () => {
  // The example pairs from the CashAddr specification: legacy Base58Check and the CashAddr of the same hash.
  const specPairs: Array<[legacy: string, cashAddr: string]> = [
    ['1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['1KXrWXciRDZUpQwQmuM1DbwsKDLYAYsVLR', 'bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy'],
    ['16w1D5WRVKJuZUsSRzdLp9w3YGcgoxDXb', 'bitcoincash:qqq3728yw0y47sqn6l2na30mcw6zm78dzqre909m2r'],
    ['3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC', 'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq'],
    ['3LDsS579y7sruadqu11beEJoTjdFiFCdX4', 'bitcoincash:pr95sy3j9xwd2ap32xkykttr4cvcu7as4yc93ky28e'],
    ['31nwvkZwyPdgzjBJZXfDmSWsC4ZLKpYyUw', 'bitcoincash:pqq3728yw0y47sqn6l2na30mcw6zm78dzq5ucqzc37'],
  ];
  const cashAddrs = specPairs.map(([, cashAddr]) => cashAddr);

  it.each(cashAddrs)('accepts %s on bitcoincash only', (cashAddr) => {
    expect(parsed(cashAddr)).toEqual({ canonical: cashAddr, family: 'bitcoin_cash', chains: ['bitcoincash'] });
  });

  it.each(cashAddrs)('gives %s without prefix and in uppercase the same canonical form', (cashAddr) => {
    const unprefixed = cashAddr.slice('bitcoincash:'.length);
    expect(parsed(unprefixed).canonical).toBe(cashAddr);
    expect(parsed(cashAddr.toUpperCase()).canonical).toBe(cashAddr);
    expect(parsed(unprefixed.toUpperCase()).canonical).toBe(cashAddr);
  });

  it.each(specPairs)('accepts legacy %s on bitcoin and bitcoincash, naming the same hash as %s', (legacy, cashAddr) => {
    expect(parsed(legacy)).toEqual({ canonical: legacy, family: 'bitcoin_legacy', chains: ['bitcoin', 'bitcoincash'] });
    const legacyPayload = createBase58check(sha256).decode(legacy);
    const decodedCashAddr = decodeCashAddress(cashAddr);
    if (typeof decodedCashAddr === 'string') throw new Error(decodedCashAddr);
    expect(decodedCashAddr.type).toBe(legacyPayload[0] === 0x00 ? 'p2pkh' : 'p2sh');
    expect(Array.from(decodedCashAddr.payload)).toEqual(Array.from(legacyPayload.subarray(1)));
  });

  it.each([
    'bitcoincash:QPM2QSZNHKS23Z7629MMS6S4CWEF74VCWVY22GDX6A',
    'BITCOINCASH:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    'bitcoincash:qpm2qsznhks23z7629mms6S4cwef74vcwvy22gdx6a',
    'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdX6a',
  ])('rejects mixed case %s', (input) => {
    expect(rejection(input)).toBe('CashAddr must not mix upper and lower case');
  });

  it('rejects a one-character change as a checksum mismatch', () => {
    expect(rejection('bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6q')).toBe('CashAddr checksum mismatch');
    expect(rejection('qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx7a')).toBe('CashAddr checksum mismatch');
  });

  it('rejects a CashAddr whose checksum was computed for another prefix', () => {
    expect(rejection('bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg3')).toBe('CashAddr checksum mismatch');
    expect(rejection('bchtest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyvwc0uz5t')).toBe(
      'only mainnet (bitcoincash:) CashAddr addresses are supported',
    );
  });

  it('rejects token-aware CashAddr types', () => {
    expect(rejection('bitcoincash:zpm2qsznhks23z7629mms6s4cwef74vcwvrqekrq9w')).toBe(
      'only P2PKH and P2SH CashAddr types are supported',
    );
  });
});

describe('Bitcoin legacy and Dogecoin Base58Check', () => {
  it('accepts Dogecoin P2PKH and P2SH addresses on dogecoin only, as given', () => {
    for (const address of ['DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pc', '9tp7THhBG3fNNFka1AJm95DU3E4x3pwQA3']) {
      expect(parsed(address)).toEqual({ canonical: address, family: 'dogecoin', chains: ['dogecoin'] });
    }
  });

  it.each([
    ['1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggv', 'legacy Bitcoin'],
    ['3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzD', 'legacy Bitcoin P2SH'],
    ['DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pd', 'Dogecoin'],
    ['9tp7THhBG3fNNFka1AJm95DU3E4x3pwQA4', 'Dogecoin P2SH'],
  ])('rejects %s (%s with one character changed)', (input) => {
    expect(rejection(input)).toBe('Base58Check checksum mismatch');
  });

  it('rejects a valid Base58Check address with a testnet version byte', () => {
    const testnet = createBase58check(sha256).encode(Uint8Array.from([0x6f, ...new Uint8Array(20).fill(7)]));
    expect(rejection(testnet)).toBe('unsupported Base58Check version byte 0x6f (testnet or another coin)');
  });

  it('keeps the legacy address exactly as given', () => {
    expect(parsed('16w1D5WRVKJuZUsSRzdLp9w3YGcgoxDXb').canonical).toBe('16w1D5WRVKJuZUsSRzdLp9w3YGcgoxDXb');
  });
});

describe('Solana addresses', () => {
  it.each([
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // USDC mint
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // SPL Token program
    '11111111111111111111111111111111', // System program
  ])('accepts %s on solana only, as given', (address) => {
    expect(parsed(address)).toEqual({ canonical: address, family: 'solana', chains: ['solana'] });
  });

  it('rejects Base58 strings that do not decode to 32 bytes (Solana has no checksum to verify)', () => {
    const thirtyThreeBytes = base58.encode(new Uint8Array(33));
    expect(thirtyThreeBytes).toBe('1'.repeat(33));
    expect(rejection(thirtyThreeBytes)).toBe(
      'Base58 string decodes to 33 bytes, not a 25-byte Base58Check or 32-byte Solana address',
    );
    expect(rejection('1'.repeat(31))).toMatch(/^Base58 string decodes to 31 bytes/);
  });

  it('rejects characters outside the Base58 alphabet', () => {
    expect(parseAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10').ok).toBe(false);
    expect(parseAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtIv').ok).toBe(false);
  });
});

describe('TON addresses', () => {
  const usdtRaw = '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe';
  const usdtForms = [
    'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs', // bounceable, base64url
    'UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p', // non-bounceable, base64url
    'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sDs', // bounceable, standard base64
    usdtRaw,
    usdtRaw.toUpperCase(),
  ];

  it.each(usdtForms)('canonicalises the USDT jetton master form %s to the raw form', (form) => {
    expect(parsed(form)).toEqual({ canonical: usdtRaw, family: 'ton', chains: ['ton'] });
  });

  it('accepts a masterchain account (the elector) in friendly and raw form', () => {
    const electorRaw = '-1:3333333333333333333333333333333333333333333333333333333333333333';
    expect(parsed('Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF').canonical).toBe(electorRaw);
    expect(parsed(electorRaw).canonical).toBe(electorRaw);
  });

  it('rejects a corrupted CRC16', () => {
    expect(rejection('UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_pAJ')).toBe('TON address CRC16 checksum mismatch');
    expect(rejection('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt')).toBe('TON address CRC16 checksum mismatch');
  });

  it('rejects the testnet-only flag even with a valid CRC16', () => {
    const usdt = Address.parse(usdtRaw);
    for (const bounceable of [true, false]) {
      const testnetForm = usdt.toString({ testOnly: true, bounceable });
      expect(rejection(testnetForm)).toBe('testnet-only TON addresses are not supported');
    }
  });

  it('rejects workchains other than 0 and -1', () => {
    const hash = usdtRaw.slice(2);
    expect(rejection(`1:${hash}`)).toBe('TON workchain must be 0 or -1');
    expect(rejection(`00:${hash}`)).toBe('TON workchain must be 0 or -1');
    expect(rejection(`-0:${hash}`)).toBe('TON workchain must be 0 or -1');
    const workchainOne = new Address(1, Buffer.from(hash, 'hex')).toString();
    expect(rejection(workchainOne)).toBe('TON workchain must be 0 or -1');
  });

  it('rejects malformed raw hashes and mixed base64 alphabets', () => {
    expect(rejection(`0:${usdtRaw.slice(2, -1)}`)).toBe('raw TON address needs 64 hex digits after the workchain');
    expect(rejection(`0:${usdtRaw.slice(2, -1)}g`)).toBe('raw TON address needs 64 hex digits after the workchain');
    expect(rejection('E-CxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sDs')).toBe(
      'TON address mixes base64 and base64url characters',
    );
  });
});

describe('canonicalAddressOnChain and isAddressOnChain', () => {
  const evm = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  const legacy = '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu';
  const segwit = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';
  const solana = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

  it('maps each address to exactly its chains', () => {
    const onChains = (input: string) => CHAIN_IDS.filter((chain) => isAddressOnChain(input, chain));
    expect(onChains(evm)).toEqual(EVM_CHAINS);
    expect(onChains(legacy)).toEqual(['bitcoin', 'bitcoincash']);
    expect(onChains(segwit)).toEqual(['bitcoin']);
    expect(onChains(solana)).toEqual(['solana']);
    expect(onChains('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs')).toEqual(['ton']);
    expect(onChains('DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pc')).toEqual(['dogecoin']);
    expect(onChains(`0x${'ab'.repeat(32)}`)).toEqual(['sui', 'aptos']);
    expect(onChains('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toEqual([]);
  });

  it('returns the canonical form on a matching chain', () => {
    const result = canonicalAddressOnChain(evm, 'base');
    expect(result).toEqual({
      ok: true,
      address: { canonical: evm.toLowerCase(), family: 'evm', chains: EVM_CHAINS },
    });
  });

  it('explains why an address does not belong to the chain', () => {
    expect(reasonFor(canonicalAddressOnChain(evm, 'solana'))).toBe('an EVM address is not valid on solana');
    expect(reasonFor(canonicalAddressOnChain(segwit, 'bitcoincash'))).toBe(
      'a Bitcoin SegWit address is not valid on bitcoincash',
    );
    expect(reasonFor(canonicalAddressOnChain(legacy, 'dogecoin'))).toBe(
      'a Bitcoin legacy (Base58Check) address is not valid on dogecoin',
    );
  });

  it('names every address family in its message, the Move family after its chains', () => {
    const cash = 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a';
    const doge = 'DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pc';
    const ton = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
    const move = `0x${'ab'.repeat(32)}`;
    expect(
      [
        canonicalAddressOnChain(cash, 'bitcoin'),
        canonicalAddressOnChain(doge, 'bitcoin'),
        canonicalAddressOnChain(solana, 'ethereum'),
        canonicalAddressOnChain(ton, 'solana'),
        canonicalAddressOnChain(move, 'base'),
      ].map(reasonFor),
    ).toEqual([
      'a Bitcoin Cash CashAddr address is not valid on bitcoin',
      'a Dogecoin address is not valid on bitcoin',
      'a Solana address is not valid on ethereum',
      'a TON address is not valid on solana',
      'a Sui/Aptos address is not valid on base',
    ]);
    expect(reasonFor(parseAddress(`0x${'ab'.repeat(21)}`))).toBe(
      '0x addresses need 40 (EVM) or 64 (Sui/Aptos) hex digits, got 42',
    );
  });

  it('passes the parse failure through unchanged', () => {
    expect(reasonFor(canonicalAddressOnChain('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'ethereum'))).toBe(
      'EIP-55 checksum mismatch',
    );
  });

  it('rejects an unknown chain from untyped callers', () => {
    expect(reasonFor(canonicalAddressOnChain(evm, 'litecoin' as ChainId))).toBe('unsupported chain');
    expect(isAddressOnChain(evm, 'litecoin' as ChainId)).toBe(false);
  });

  it('returns a fresh chains array each time', () => {
    const first = parsed(evm);
    first.chains.push('solana');
    expect(parsed(evm).chains).toEqual(EVM_CHAINS);
  });
});
