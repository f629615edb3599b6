import {
  AccountRole,
  address as toAddress,
  getBase58Encoder,
  type Address,
  type ReadonlyUint8Array,
} from '@solana/kit';
import {
  identifySystemInstruction,
  parseCreateAccountInstruction,
  parseCreateAccountWithSeedInstruction,
  parseTransferSolInstruction,
  parseTransferSolWithSeedInstruction,
  SYSTEM_PROGRAM_ADDRESS,
  SystemInstruction,
} from '@solana-program/system';
import {
  identifyTokenInstruction,
  parseBurnCheckedInstruction,
  parseBurnInstruction,
  parseMintToCheckedInstruction,
  parseMintToInstruction,
  parseTransferCheckedInstruction,
  parseTransferInstruction,
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
} from '@solana-program/token';
import { NATIVE, TouchedSet, type HoldingKey, type ObservedTransfer } from '../reading';

/**
 * Token-2022's program. Its `transfer`, `transferChecked`, `mintTo(Checked)` and `burn(Checked)`
 * instructions keep SPL Token's discriminators and layouts (Token-2022 extends the Token program
 * and leaves its first 25 instructions as they are), so they are decoded with
 * `@solana-program/token`'s decoders; the tests run them against the real Token-2022 program in
 * litesvm. No release of `@solana-program/token-2022` fits chaintags (`@solana/kit` 8, Node 20.19
 * and later): 0.13 and 0.15 declare Node 24 or later and a peer `@solana/kit` ^7, 0.11 a peer
 * `@solana/kit` ^6.
 */
export const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' as Address;

export const TOKEN_PROGRAMS: readonly Address[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS];

/**
 * The all-zero key (the System Program's id): where a burn sends tokens, as the EVM followers record
 * burns to the zero address. A mint comes from `0`, as on EVM chains.
 */
export const BURNED = SYSTEM_PROGRAM_ADDRESS as string;

/** A compiled instruction as `getBlock`/`getTransaction` give it with `encoding: 'json'`. */
export interface CompiledInstruction {
  programIdIndex: number;
  accounts: readonly number[];
  /** Base58. */
  data: string;
}

/** A token account's balance in a transaction's meta. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/** One transaction of a block, in the fields chaintags reads (its `json` encoding, with meta). */
export interface SolanaTransaction {
  signature: string;
  /** The message's keys, then the keys loaded from lookup tables (writable, then readonly). */
  accountKeys: readonly string[];
  instructions: readonly CompiledInstruction[];
  /** Inner instructions by the index of the instruction that made them. */
  inner: ReadonlyMap<number, readonly CompiledInstruction[]>;
  /** `meta.err` was not null: nothing moved but the fee. */
  failed: boolean;
  preBalances: readonly bigint[];
  postBalances: readonly bigint[];
  preTokenBalances: readonly TokenBalance[];
  postTokenBalances: readonly TokenBalance[];
}

/** Where the transaction was: the slot, its block hash and time (ISO 8601). */
export interface SlotOf {
  slot: bigint;
  hash: string;
  time: string;
}

/** A movement one instruction made: lamports (`token` `0`) or tokens of a mint, between accounts. */
interface Movement {
  token: string;
  from: string;
  to: string;
  amount: bigint;
}

/**
 * The transfers a transaction made that touch `followed` (contract §16), and the balances it
 * changed of followed addresses. SOL moved by the System Program (`transfer`, `transferWithSeed`,
 * `createAccount`, `createAccountWithSeed`), at the top level or in inner instructions, is
 * recorded between the accounts it moved between, `token_address` `0`. Tokens moved by the Token
 * and Token-2022 programs (`transfer`, `transferChecked`, `mintTo`, `mintToChecked`, `burn`,
 * `burnChecked`) are recorded between the owners of the token accounts (from the meta's token
 * balances: an incoming transfer touches the recipient's token account, never the wallet), with
 * the mint as `token_address`; a mint comes from `0`, a burn goes to `BURNED`. Ids are
 * `solana:<signature>:<instruction>` and `solana:<signature>:<instruction>.<inner>`.
 *
 * A failed transaction moves nothing (no transfer) but its fee: the payer's balance is touched.
 */
export function readTransaction(
  tx: SolanaTransaction,
  at: SlotOf,
  followed: ReadonlySet<string>,
): { transfers: ObservedTransfer[]; touched: HoldingKey[] } {
  const touched = new TouchedSet();
  tx.accountKeys.forEach((key, index) => {
    if (followed.has(key) && tx.preBalances[index] !== tx.postBalances[index]) touched.add(key, NATIVE);
  });
  if (tx.failed) return { transfers: [], touched: touched.list() };

  const accounts = tokenAccounts(tx);
  const before = new Map(tx.preTokenBalances.map((entry) => [entry.accountIndex, entry.uiTokenAmount.amount]));
  for (const entry of tx.postTokenBalances) {
    const owner = accounts.get(tx.accountKeys[entry.accountIndex] ?? '')?.owner;
    if (owner !== undefined && followed.has(owner) && before.get(entry.accountIndex) !== entry.uiTokenAmount.amount)
      touched.add(owner, entry.mint);
  }
  for (const entry of tx.preTokenBalances) {
    // A token account closed by the transaction has a balance before and none after.
    const owner = entry.owner;
    if (owner === undefined || !followed.has(owner)) continue;
    if (!tx.postTokenBalances.some((post) => post.accountIndex === entry.accountIndex)) touched.add(owner, entry.mint);
  }

  const transfers: ObservedTransfer[] = [];
  const record = (position: string, movement: Movement) => {
    if (!followed.has(movement.from) && !followed.has(movement.to)) return;
    transfers.push({
      id: `solana:${tx.signature}:${position}`,
      chain: 'solana',
      token_address: movement.token,
      from_address: movement.from,
      to_address: movement.to,
      value: movement.amount.toString(),
      tx_hash: tx.signature,
      block_number: at.slot.toString(),
      block_hash: at.hash,
      block_time: at.time,
    });
    for (const end of [movement.from, movement.to]) if (followed.has(end)) touched.add(end, movement.token);
  };
  tx.instructions.forEach((instruction, index) => {
    const moved = movementOf(tx, instruction, accounts);
    if (moved !== undefined) record(String(index), moved);
    (tx.inner.get(index) ?? []).forEach((inner, innerIndex) => {
      const movedInside = movementOf(tx, inner, accounts);
      if (movedInside !== undefined) record(`${index}.${innerIndex}`, movedInside);
    });
  });
  return { transfers, touched: touched.list() };
}

/** Token account → its owner and mint, from the transaction's token balances (after, else before). */
function tokenAccounts(tx: SolanaTransaction): Map<string, { owner: string | undefined; mint: string }> {
  const found = new Map<string, { owner: string | undefined; mint: string }>();
  for (const entry of [...tx.postTokenBalances, ...tx.preTokenBalances]) {
    const key = tx.accountKeys[entry.accountIndex];
    if (key === undefined) continue;
    const known = found.get(key);
    if (known === undefined || known.owner === undefined) found.set(key, { owner: entry.owner, mint: entry.mint });
  }
  return found;
}

const base58 = getBase58Encoder();

/** What a System or Token instruction moved, undefined for anything else (or an instruction that does not decode). */
function movementOf(
  tx: SolanaTransaction,
  compiled: CompiledInstruction,
  accounts: TokenAccounts,
): Movement | undefined {
  const program = tx.accountKeys[compiled.programIdIndex];
  const isSystem = program === SYSTEM_PROGRAM_ADDRESS;
  const isToken = program !== undefined && (TOKEN_PROGRAMS as readonly string[]).includes(program);
  if (!isSystem && !isToken) return undefined;
  const keys = compiled.accounts.map((index) => tx.accountKeys[index]);
  if (keys.some((key) => key === undefined)) return undefined;
  let data: ReadonlyUint8Array;
  try {
    data = base58.encode(compiled.data);
  } catch {
    return undefined;
  }
  const instruction = {
    programAddress: toAddress(program),
    accounts: (keys as string[]).map((key) => ({ address: key as Address, role: AccountRole.READONLY })),
    data,
  };
  try {
    return isSystem ? systemMovement(instruction) : tokenMovement(instruction, accounts);
  } catch {
    // Too few accounts or data that does not decode: the program refused it too, or it is not a movement.
    return undefined;
  }
}

type Decodable = Parameters<typeof parseTransferSolInstruction>[0];
type TokenAccounts = ReadonlyMap<string, { owner: string | undefined; mint: string }>;

/** The System Program's instructions that move lamports, and what each moves. */
const SYSTEM_MOVEMENTS: Partial<Record<SystemInstruction, (instruction: Decodable) => Movement>> = {
  [SystemInstruction.TransferSol]: (instruction) => {
    const { accounts, data } = parseTransferSolInstruction(instruction);
    return lamports(accounts.source.address, accounts.destination.address, data.amount);
  },
  [SystemInstruction.TransferSolWithSeed]: (instruction) => {
    const { accounts, data } = parseTransferSolWithSeedInstruction(instruction);
    return lamports(accounts.source.address, accounts.destination.address, data.amount);
  },
  [SystemInstruction.CreateAccount]: (instruction) => {
    const { accounts, data } = parseCreateAccountInstruction(instruction);
    return lamports(accounts.payer.address, accounts.newAccount.address, data.lamports);
  },
  [SystemInstruction.CreateAccountWithSeed]: (instruction) => {
    const { accounts, data } = parseCreateAccountWithSeedInstruction(instruction);
    return lamports(accounts.payer.address, accounts.newAccount.address, data.amount);
  },
};

function systemMovement(instruction: Decodable): Movement | undefined {
  return SYSTEM_MOVEMENTS[identifySystemInstruction(instruction.data)]?.(instruction);
}

function lamports(from: string, to: string, amount: bigint): Movement {
  return { token: NATIVE, from, to, amount };
}

/** The token programs' instructions that move tokens, and what each moves (owners from the token balances). */
const TOKEN_MOVEMENTS: Partial<
  Record<TokenInstruction, (instruction: Decodable, accounts: TokenAccounts) => Movement | undefined>
> = {
  [TokenInstruction.Transfer]: (instruction, accounts) => {
    const { accounts: keys, data } = parseTransferInstruction(instruction);
    const source = keys.source.address;
    const destination = keys.destination.address;
    // `transfer` names no mint: the token accounts' balances do.
    const mint = accounts.get(source)?.mint ?? accounts.get(destination)?.mint;
    if (mint === undefined) return undefined;
    return { token: mint, from: ownerOf(accounts, source), to: ownerOf(accounts, destination), amount: data.amount };
  },
  [TokenInstruction.TransferChecked]: (instruction, accounts) => {
    const { accounts: keys, data } = parseTransferCheckedInstruction(instruction);
    return {
      token: keys.mint.address,
      from: ownerOf(accounts, keys.source.address),
      to: ownerOf(accounts, keys.destination.address),
      amount: data.amount,
    };
  },
  [TokenInstruction.MintTo]: (instruction, accounts) => {
    const { accounts: keys, data } = parseMintToInstruction(instruction);
    return { token: keys.mint.address, from: NATIVE, to: ownerOf(accounts, keys.token.address), amount: data.amount };
  },
  [TokenInstruction.MintToChecked]: (instruction, accounts) => {
    const { accounts: keys, data } = parseMintToCheckedInstruction(instruction);
    return { token: keys.mint.address, from: NATIVE, to: ownerOf(accounts, keys.token.address), amount: data.amount };
  },
  [TokenInstruction.Burn]: (instruction, accounts) => {
    const { accounts: keys, data } = parseBurnInstruction(instruction);
    return { token: keys.mint.address, from: ownerOf(accounts, keys.account.address), to: BURNED, amount: data.amount };
  },
  [TokenInstruction.BurnChecked]: (instruction, accounts) => {
    const { accounts: keys, data } = parseBurnCheckedInstruction(instruction);
    return { token: keys.mint.address, from: ownerOf(accounts, keys.account.address), to: BURNED, amount: data.amount };
  },
};

function tokenMovement(instruction: Decodable, accounts: TokenAccounts): Movement | undefined {
  return TOKEN_MOVEMENTS[identifyTokenInstruction(instruction.data)]?.(instruction, accounts);
}

/** The owner of a token account, as the transaction's token balances name it (the account itself if they do not). */
function ownerOf(accounts: TokenAccounts, account: string): string {
  return accounts.get(account)?.owner ?? account;
}
