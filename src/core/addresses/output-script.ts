// libauth's package entry uses top-level await, which CommonJS cannot require; this module of it has none.
import { decodeCashAddress, encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check, hex } from '@scure/base';

import type { ChainId } from '../chains/chain-ids';
import type { AddressFamily, ParsedAddress } from './address-families';
import { canonicalAddressOnChain, parseAddress } from './address-parser';

/**
 * Addresses ↔ the output scripts (scriptPubKey) they pay to, for the Bitcoin family. The follower
 * matches a node's outputs by script, never by the address strings a node prints (their JSON field
 * changed between versions, and a regtest node prints regtest forms); these two functions are the
 * only place where an address becomes a script and back.
 *
 * Scripts are lowercase hex, as `scriptPubKey.hex` in a node's answer.
 */

const base58check = createBase58check(sha256);

// Script opcodes used by the standard output templates.
const OP_0 = 0x00;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_DUP = 0x76;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_CHECKSIG = 0xac;
const OP_HASH160 = 0xa9;
const OP_HASH256 = 0xaa;

const HASH160_BYTES = 20;
const HASH256_BYTES = 32;
const TAPROOT_PROGRAM_BYTES = 32;
const MIN_WITNESS_PROGRAM_BYTES = 2;
const MAX_WITNESS_PROGRAM_BYTES = 40;

type UtxoChain = 'bitcoin' | 'bitcoincash' | 'dogecoin';

/** Mainnet Base58Check version bytes of each chain's P2PKH and P2SH addresses. */
const BASE58_VERSIONS: Readonly<Record<UtxoChain, { p2pkh: number; p2sh: number }>> = {
  bitcoin: { p2pkh: 0x00, p2sh: 0x05 },
  bitcoincash: { p2pkh: 0x00, p2sh: 0x05 },
  dogecoin: { p2pkh: 0x1e, p2sh: 0x16 },
};

/** What a standard output script pays to, independent of how any chain writes it as an address. */
type Destination =
  | { kind: 'p2pkh'; hash: Uint8Array }
  | { kind: 'p2sh'; hash: Uint8Array }
  /** Bitcoin Cash's P2SH with a 32-byte hash (`OP_HASH256 <32> OP_EQUAL`, May 2023 upgrade). */
  | { kind: 'p2sh32'; hash: Uint8Array }
  | { kind: 'witness'; version: number; program: Uint8Array };

function isUtxoChain(chain: ChainId): chain is UtxoChain {
  return chain === 'bitcoin' || chain === 'bitcoincash' || chain === 'dogecoin';
}

/**
 * The lowercase hex output script that a mainnet address pays to on `chain`, or undefined when the
 * address is not valid there (or `chain` is not of the Bitcoin family). Any accepted spelling of
 * the address works, not only the canonical one.
 *
 * Every valid SegWit address has a script (BIP-141: the version's opcode, then the program), also
 * witness versions that `addressOfScript` does not name (≥ 2, or v1 that is not 32 bytes): an
 * output to one of those is still found when the address is tracked.
 */
export function outputScriptOf(chain: ChainId, canonical: string): string | undefined {
  if (!isUtxoChain(chain)) return undefined;
  const parsed = canonicalAddressOnChain(canonical, chain);
  if (!parsed.ok) return undefined;
  const destination = destinationOfAddress(chain, parsed.address.family, parsed.address.canonical);
  return destination === undefined ? undefined : hex.encode(scriptOf(destination));
}

/**
 * The canonical mainnet address (as `parseAddress` returns it) that a standard output script pays
 * to on `chain`: bitcoin `1…`/`3…`/`bc1…`, bitcoincash `bitcoincash:q…`/`p…`, dogecoin `D…`/`A…`/`9…`.
 * A pay-to-pubkey output names the P2PKH address of its key, as explorers show it. Anything else
 * (OP_RETURN, bare multisig, non-standard scripts, witness versions ≥ 2, a script the chain has no
 * address for) gives undefined. Upper- or lowercase hex is accepted.
 */
export function addressOfScript(chain: ChainId, script: string): string | undefined {
  if (!isUtxoChain(chain)) return undefined;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(script)) return undefined;
  const destination = destinationOfScript(hex.decode(script.toLowerCase()));
  return destination === undefined ? undefined : addressOfDestination(chain, destination);
}

/**
 * A legacy `1…`/`3…` address and its CashAddr twin are one address on bitcoincash (contract §3,
 * §13). For either form, both canonical forms `[legacy, cashaddr]`; for anything else (including a
 * 32-byte CashAddr P2SH, which has no legacy form) `[canonical]`.
 */
export function cashAddressTwins(input: string): string[] {
  const parsed = parseAddress(input);
  return parsed.ok ? twinsOf(parsed.address) : [input];
}

/** cashAddressTwins of an address already parsed: only the other form is derived. */
export function twinsOf(parsed: ParsedAddress): string[] {
  const { family, canonical } = parsed;
  if (family !== 'bitcoin_legacy' && family !== 'bitcoin_cash') return [canonical];
  const destination = destinationOfAddress('bitcoincash', family, canonical);
  if (destination === undefined || destination.kind === 'p2sh32') return [canonical];
  const twin = addressOfDestination(family === 'bitcoin_legacy' ? 'bitcoincash' : 'bitcoin', destination);
  if (twin === undefined) return [canonical];
  return family === 'bitcoin_legacy' ? [canonical, twin] : [twin, canonical];
}

function destinationOfAddress(chain: UtxoChain, family: AddressFamily, address: string): Destination | undefined {
  switch (family) {
    case 'bitcoin_legacy':
    case 'dogecoin': {
      const payload = base58check.decode(address);
      const version = payload[0];
      const hash = payload.subarray(1);
      if (version === BASE58_VERSIONS[chain].p2pkh) return { kind: 'p2pkh', hash };
      if (version === BASE58_VERSIONS[chain].p2sh) return { kind: 'p2sh', hash };
      return undefined;
    }
    case 'bitcoin_cash': {
      const decoded = decodeCashAddress(address);
      if (typeof decoded === 'string') return undefined;
      const hash = decoded.payload;
      if (decoded.type === 'p2pkh' && hash.length === HASH160_BYTES) return { kind: 'p2pkh', hash };
      if (decoded.type === 'p2sh' && hash.length === HASH160_BYTES) return { kind: 'p2sh', hash };
      if (decoded.type === 'p2sh' && hash.length === HASH256_BYTES) return { kind: 'p2sh32', hash };
      // A P2PKH CashAddr with a 32-byte payload decodes, but no standard script pays to it.
      return undefined;
    }
    case 'bitcoin_segwit': {
      const coder = address.startsWith('bc1q') ? bech32 : bech32m;
      const [version, ...words] = coder.decode(address as `${string}1${string}`, 90).words;
      if (version === undefined) return undefined;
      return { kind: 'witness', version, program: coder.fromWords(words) };
    }
    case 'evm':
    case 'solana':
    case 'ton':
    case 'move':
      return undefined;
  }
}

function scriptOf(destination: Destination): Uint8Array {
  switch (destination.kind) {
    case 'p2pkh':
      return bytes(OP_DUP, OP_HASH160, HASH160_BYTES, destination.hash, OP_EQUALVERIFY, OP_CHECKSIG);
    case 'p2sh':
      return bytes(OP_HASH160, HASH160_BYTES, destination.hash, OP_EQUAL);
    case 'p2sh32':
      return bytes(OP_HASH256, HASH256_BYTES, destination.hash, OP_EQUAL);
    case 'witness': {
      const versionOpcode = destination.version === 0 ? OP_0 : OP_1 + destination.version - 1;
      return bytes(versionOpcode, destination.program.length, destination.program);
    }
  }
}

function destinationOfScript(script: Uint8Array): Destination | undefined {
  const at = (index: number) => script[index];
  const n = script.length;

  if (n === 25 && at(0) === OP_DUP && at(1) === OP_HASH160 && at(2) === HASH160_BYTES) {
    if (at(23) === OP_EQUALVERIFY && at(24) === OP_CHECKSIG) return { kind: 'p2pkh', hash: script.slice(3, 23) };
  }
  if (n === 23 && at(0) === OP_HASH160 && at(1) === HASH160_BYTES && at(22) === OP_EQUAL) {
    return { kind: 'p2sh', hash: script.slice(2, 22) };
  }
  if (n === 35 && at(0) === OP_HASH256 && at(1) === HASH256_BYTES && at(34) === OP_EQUAL) {
    return { kind: 'p2sh32', hash: script.slice(2, 34) };
  }
  const publicKey = payToPublicKey(script);
  if (publicKey !== undefined) return { kind: 'p2pkh', hash: ripemd160(sha256(publicKey)) };

  // BIP-141: a witness output is one version opcode then one direct push of 2 to 40 bytes, nothing else.
  const version = witnessVersion(at(0));
  const pushed = at(1);
  if (
    version !== undefined &&
    pushed !== undefined &&
    pushed >= MIN_WITNESS_PROGRAM_BYTES &&
    pushed <= MAX_WITNESS_PROGRAM_BYTES &&
    n === 2 + pushed
  ) {
    return { kind: 'witness', version, program: script.slice(2) };
  }
  return undefined;
}

function witnessVersion(opcode: number | undefined): number | undefined {
  if (opcode === OP_0) return 0;
  if (opcode !== undefined && opcode >= OP_1 && opcode <= OP_16) return opcode - OP_1 + 1;
  return undefined;
}

/**
 * The key of a pay-to-pubkey output (`<key> OP_CHECKSIG`), when its length fits its header byte the
 * way Bitcoin Core's solver requires: 33 bytes for a compressed key (02/03), 65 for an uncompressed
 * or hybrid one (04/06/07).
 */
function payToPublicKey(script: Uint8Array): Uint8Array | undefined {
  const length = script[0];
  if ((length !== 33 && length !== 65) || script.length !== length + 2 || script[length + 1] !== OP_CHECKSIG) {
    return undefined;
  }
  const header = script[1];
  const fits =
    length === 33 ? header === 0x02 || header === 0x03 : header === 0x04 || header === 0x06 || header === 0x07;
  return fits ? script.slice(1, 1 + length) : undefined;
}

function addressOfDestination(chain: UtxoChain, destination: Destination): string | undefined {
  switch (destination.kind) {
    case 'p2pkh':
    case 'p2sh':
      if (chain === 'bitcoincash') {
        return encodeCashAddress({ payload: destination.hash, type: destination.kind }).address;
      }
      return base58check.encode(bytes(BASE58_VERSIONS[chain][destination.kind], destination.hash));
    case 'p2sh32':
      return chain === 'bitcoincash'
        ? encodeCashAddress({ payload: destination.hash, type: 'p2sh' }).address
        : undefined;
    case 'witness':
      return chain === 'bitcoin' ? segwitAddress(destination.version, destination.program) : undefined;
  }
}

/** Witness v0 (P2WPKH, P2WSH) and v1 Taproot only: the output types a Bitcoin explorer names today. */
function segwitAddress(version: number, program: Uint8Array): string | undefined {
  if (version === 0 && (program.length === HASH160_BYTES || program.length === HASH256_BYTES)) {
    return bech32.encode('bc', [0, ...bech32.toWords(program)]);
  }
  if (version === 1 && program.length === TAPROOT_PROGRAM_BYTES) {
    return bech32m.encode('bc', [1, ...bech32m.toWords(program)]);
  }
  return undefined;
}

function bytes(...parts: (number | Uint8Array)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === 'number') out.push(part);
    else out.push(...part);
  }
  return Uint8Array.from(out);
}
