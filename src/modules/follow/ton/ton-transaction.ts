import { Address, Cell, loadTransaction, type Message, type Slice } from '@ton/core';

/**
 * TON transactions as the TON source reads them: decoded from the BOC that toncenter's
 * `getTransactions` gives (`data`) with `@ton/core`, reduced to what transfers are made of.
 * Addresses are raw (`0:<hex>`, lowercase), chaintags' canonical TON form.
 */

/** TEP-74 operation codes. */
export const JETTON_OP = {
  transfer: 0x0f8a7ea5,
  internalTransfer: 0x178d4519,
  transferNotification: 0x7362d09c,
  excesses: 0xd53276db,
  burn: 0x595f07bc,
  burnNotification: 0x7bdd97de,
} as const;

/** The first 32 bits of a bounced message's body. */
const BOUNCE_PREFIX = 0xffffffff;

export interface TonMessage {
  /** Raw address; undefined for an external message's missing source. */
  source: string | undefined;
  destination: string | undefined;
  /** Nanotons; 0 for external messages. */
  value: bigint;
  internal: boolean;
  /** The logical time the message was created at (its sending transaction's); 0 for an external inbound one. */
  createdLt: bigint;
  bounced: boolean;
  /** The body's first 32 bits, when it has them (after the bounce prefix, for a bounced message). */
  op: number | undefined;
  body: Cell;
}

export interface TonTransaction {
  account: string;
  lt: bigint;
  /** Lowercase hex. */
  hash: string;
  prevLt: bigint;
  prevHash: string;
  /** Unix seconds. */
  now: number;
  /** An ordinary transaction whose compute and action phases succeeded (not aborted). */
  successful: boolean;
  /**
   * Whether the inbound message's value stayed on the account: always when the transaction
   * succeeded, and also when it aborted without bouncing the value back (a non-bounceable
   * message, or one too small to pay for a bounce), since the credit phase came first.
   */
  keptInbound: boolean;
  inMessage: TonMessage | undefined;
  outMessages: TonMessage[];
}

export function decodeTransaction(boc: string): TonTransaction {
  const cell = Cell.fromBase64(boc);
  const tx = loadTransaction(cell.beginParse());
  const inMessage = tx.inMessage ? messageOf(tx.inMessage) : undefined;
  const description = tx.description;
  const successful = description.type === 'generic' && !description.aborted;
  const keptInbound = description.type === 'generic' && (successful || description.bouncePhase?.type !== 'ok');
  const account = inMessage?.destination ?? new Address(0, bigintBytes(tx.address)).toRawString();
  return {
    account,
    lt: tx.lt,
    hash: cell.hash().toString('hex'),
    prevLt: tx.prevTransactionLt,
    prevHash: bigintBytes(tx.prevTransactionHash).toString('hex'),
    now: tx.now,
    successful,
    keptInbound,
    inMessage,
    outMessages: [...tx.outMessages.values()].map(messageOf),
  };
}

function messageOf(message: Message): TonMessage {
  const info = message.info;
  const internal = info.type === 'internal';
  const bounced = internal && info.bounced;
  const body = message.body;
  const slice = body.beginParse();
  let op: number | undefined;
  if (bounced && slice.remainingBits >= 64 && slice.loadUint(32) === BOUNCE_PREFIX) op = slice.loadUint(32);
  else if (!bounced && slice.remainingBits >= 32) op = slice.loadUint(32);
  return {
    source: info.type === 'external-in' ? undefined : rawOf(info.src),
    destination: info.type === 'external-out' ? undefined : rawOf(info.dest),
    value: internal ? info.value.coins : 0n,
    internal,
    createdLt: info.type === 'external-in' ? 0n : info.createdLt,
    bounced,
    op,
    body,
  };
}

function rawOf(address: unknown): string | undefined {
  return address instanceof Address ? address.toRawString() : undefined;
}

function bigintBytes(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}

/** What a Jetton message's body says, for the operations the source reads. */
export interface JettonBody {
  op: number;
  amount: bigint;
  /** transfer: the recipient owner; internal_transfer: the sending owner (or the minter for a mint); burn_notification: the owner. */
  party: string | undefined;
}

/**
 * The amount and counterpart of a TEP-74 message (`transfer`, `internal_transfer`,
 * `transfer_notification`, `burn`, `burn_notification`), or, for a bounced one, of what came
 * back (its body is cut after 256 bits: op, query id, amount). Undefined when the body is not one.
 */
export function jettonBody(message: TonMessage): JettonBody | undefined {
  const op = message.op;
  if (op === undefined || !(Object.values(JETTON_OP) as number[]).includes(op)) return undefined;
  try {
    const slice = message.body.beginParse();
    slice.skip(message.bounced ? 64 : 32);
    slice.skip(64); // query id
    const amount = slice.loadCoins();
    if (message.bounced) return { op, amount, party: undefined };
    let party: string | undefined;
    if (op === JETTON_OP.transfer || op === JETTON_OP.internalTransfer || op === JETTON_OP.transferNotification) {
      party = addressOf(slice);
    } else if (op === JETTON_OP.burnNotification) {
      party = addressOf(slice);
    }
    return { op, amount, party };
  } catch {
    return undefined;
  }
}

function addressOf(slice: Slice): string | undefined {
  const address = slice.loadMaybeAddress();
  return address === null ? undefined : address.toRawString();
}
