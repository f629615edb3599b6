/**
 * Blocks and transactions of the Bitcoin family as the UTXO follower uses them, parsed from a
 * node's verbose JSON. Only what matching by output script needs is kept: outpoints spent, and
 * outputs with their value and script. Address strings a node prints (`scriptPubKey.addresses[]`
 * before Bitcoin Core 22, `scriptPubKey.address` since) are ignored, as are Bitcoin Cash Node's
 * `tokenData` and Dogecoin's `auxpow`: matching is by `scriptPubKey.hex` alone (contract §13).
 *
 * A node's answer is checked, not trusted: anything malformed throws `MalformedNodeAnswer` naming
 * the field.
 */

export interface UtxoOutput {
  n: number;
  /** Satoshis. */
  value: bigint;
  /** The output script (scriptPubKey), lowercase hex. */
  script: string;
}

/** The outpoint an input spends. */
export interface UtxoInput {
  txid: string;
  vout: number;
}

export interface UtxoTransaction {
  txid: string;
  /** A coinbase transaction spends nothing: its `inputs` are empty. */
  coinbase: boolean;
  inputs: UtxoInput[];
  outputs: UtxoOutput[];
}

export interface UtxoBlock {
  height: bigint;
  /** Lowercase hex, as nodes print block hashes. */
  hash: string;
  /** 64 zeros for a genesis block. */
  parentHash: string;
  /** The header time, ISO 8601 (`toISOString()`). */
  time: string;
  transactions: UtxoTransaction[];
}

export class MalformedNodeAnswer extends Error {
  constructor(message: string) {
    super(`malformed node answer: ${message}`);
    this.name = 'MalformedNodeAnswer';
  }
}

export const NO_PARENT = '0'.repeat(64);

const SATOSHI_DECIMALS = 8;
/** No amount a node prints needs more: it bounds the digits an exponent can ask for. */
const MAX_EXPONENT = 30;
/** 2^26 coins in satoshis: from there up, a double's neighbours are more than a satoshi apart. */
const MAX_EXACT_NUMBER = 2n ** 26n * 10n ** 8n;
const AMOUNT = /^(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/;
const HASH = /^[0-9a-f]{64}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * An amount as a node prints it (coins with up to 8 decimals) in satoshis, exactly. A decimal
 * string is read digit by digit; a number only when it is below 2^26 coins (67,108,864: about 6.7
 * × 10^15 satoshis), where doubles lie closer together than a satoshi and so still tell every
 * 8-decimal amount apart (above, 68480207.58940076 reads as …75; pass the node's text, as
 * `BitcoinRpc` does: a Dogecoin output can hold more).
 * Negative amounts, more than 8 decimals, and anything that is not a plain decimal are refused.
 */
export function satoshis(value: number | string): bigint {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new MalformedNodeAnswer(`amount ${value}`);
  const text = typeof value === 'number' ? String(value) : value;
  const match = AMOUNT.exec(text);
  if (match === null) throw new MalformedNodeAnswer(`amount ${JSON.stringify(value)} is not a plain decimal`);
  const [, whole, fraction = '', exponentText] = match;
  if (Math.abs(Number(exponentText ?? 0)) > MAX_EXPONENT) {
    throw new MalformedNodeAnswer(`amount ${JSON.stringify(value)} is out of range`);
  }
  // The decimal point moves right by 8 places (to satoshis) and by the exponent.
  const shift = SATOSHI_DECIMALS + Number(exponentText ?? 0);
  const digits = `${whole}${fraction}`;
  const pointAt = whole!.length + shift;
  const integerDigits = pointAt <= 0 ? '0' : digits.slice(0, pointAt).padEnd(pointAt, '0');
  const rest = pointAt <= 0 ? digits : digits.slice(Math.max(pointAt, 0));
  if (/[1-9]/.test(rest)) {
    throw new MalformedNodeAnswer(`amount ${JSON.stringify(value)} has more than ${SATOSHI_DECIMALS} decimals`);
  }
  const result = BigInt(integerDigits);
  if (typeof value === 'number' && result >= MAX_EXACT_NUMBER) {
    throw new MalformedNodeAnswer(`amount ${value} is too large to be exact as a JSON number`);
  }
  return result;
}

/** A transaction from `getrawtransaction <txid> true`, or one inside `getblock <hash> 2`. */
export function transactionFromVerbose(json: unknown): UtxoTransaction {
  const tx = object(json, 'transaction');
  const txid = hash(tx.txid, 'transaction txid');
  const where = `transaction ${txid}`;
  const vin = array(tx.vin, `${where} vin`);
  const vout = array(tx.vout, `${where} vout`);
  if (vin.length === 0) throw new MalformedNodeAnswer(`${where} has no inputs`);

  const firstInput = object(vin[0], `${where} vin[0]`);
  const coinbase = 'coinbase' in firstInput;
  if (coinbase) {
    if (vin.length !== 1) throw new MalformedNodeAnswer(`coinbase ${where} has ${vin.length} inputs`);
    if (typeof firstInput.coinbase !== 'string' || !HEX.test(firstInput.coinbase)) {
      throw new MalformedNodeAnswer(`${where} vin[0].coinbase is not hex`);
    }
  }
  const inputs = coinbase
    ? []
    : vin.map((entry, index) => {
        const input = object(entry, `${where} vin[${index}]`);
        if ('coinbase' in input) throw new MalformedNodeAnswer(`${where} vin[${index}] is a coinbase input`);
        return {
          txid: hash(input.txid, `${where} vin[${index}].txid`),
          vout: index32(input.vout, `${where} vin[${index}].vout`),
        };
      });
  const outputs = vout.map((entry, index) => {
    const output = object(entry, `${where} vout[${index}]`);
    const n = index32(output.n, `${where} vout[${index}].n`);
    if (n !== index) throw new MalformedNodeAnswer(`${where} vout[${index}] says it is output ${n}`);
    const value = output.value;
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw new MalformedNodeAnswer(`${where} vout[${index}].value is not an amount`);
    }
    const scriptPubKey = object(output.scriptPubKey, `${where} vout[${index}].scriptPubKey`);
    const script = scriptPubKey.hex;
    if (typeof script !== 'string' || !HEX.test(script)) {
      throw new MalformedNodeAnswer(`${where} vout[${index}].scriptPubKey.hex is not hex`);
    }
    return { n, value: satoshis(value), script: script.toLowerCase() };
  });
  return { txid, coinbase, inputs, outputs };
}

/**
 * A block from `getblock <hash> 2` (transactions inside), or from `getblock <hash> true` (txids
 * only) together with its `transactions` read separately, which must be those txids in order.
 */
export function blockFromVerbose(json: unknown, transactions?: UtxoTransaction[]): UtxoBlock {
  const block = object(json, 'block');
  const blockHash = hash(block.hash, 'block hash');
  const where = `block ${blockHash}`;
  const height = block.height;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) {
    throw new MalformedNodeAnswer(`${where} height is not a block height`);
  }
  const parentHash = height === 0 ? NO_PARENT : hash(block.previousblockhash, `${where} previousblockhash`);
  const time = block.time;
  if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) {
    throw new MalformedNodeAnswer(`${where} time is not a Unix time`);
  }
  const tx = array(block.tx, `${where} tx`);
  if (tx.length === 0) throw new MalformedNodeAnswer(`${where} has no transactions`);

  let parsed: UtxoTransaction[];
  if (tx.every((entry) => typeof entry === 'string')) {
    if (transactions === undefined) {
      throw new MalformedNodeAnswer(`${where} lists txids only (verbosity 1) and no transactions were given`);
    }
    const txids = tx.map((entry, index) => hash(entry, `${where} tx[${index}]`));
    if (transactions.length !== txids.length || transactions.some((t, index) => t.txid !== txids[index])) {
      throw new Error(`${where}: the transactions given are not the block's, in its order`);
    }
    parsed = transactions;
  } else {
    parsed = tx.map((entry) => transactionFromVerbose(entry));
  }
  if (!parsed[0]!.coinbase) throw new MalformedNodeAnswer(`${where} does not start with a coinbase transaction`);
  if (parsed.slice(1).some((t) => t.coinbase)) throw new MalformedNodeAnswer(`${where} has a second coinbase`);

  return {
    height: BigInt(height),
    hash: blockHash,
    parentHash,
    time: new Date(time * 1000).toISOString(),
    transactions: parsed,
  };
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedNodeAnswer(`${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedNodeAnswer(`${what} is not a list`);
  return value;
}

function hash(value: unknown, what: string): string {
  if (typeof value !== 'string' || !HASH.test(value))
    throw new MalformedNodeAnswer(`${what} is not a 64-digit hex hash`);
  return value;
}

function index32(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new MalformedNodeAnswer(`${what} is not an output index`);
  }
  return value;
}
