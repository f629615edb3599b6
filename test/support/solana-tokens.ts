import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getBurnCheckedInstruction,
  getCreateAssociatedTokenInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from '@solana-program/token';
import type { SolanaStandIn } from './solana-rpc-stand-in';

/**
 * Instructions of the SPL Token and Token-2022 programs for the Solana follower's tests, built with
 * `@solana-program/token`'s builders for either program (`program`): Token-2022 keeps SPL Token's
 * layouts for these instructions, so one builder serves both, and litesvm runs them on the real
 * programs.
 */
const MINT_SIZE = 82n;

export async function createMint(
  node: SolanaStandIn,
  payer: KeyPairSigner,
  program: Address,
  decimals: number,
): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const { failed } = await node.send(payer, [
    getCreateAccountInstruction({
      payer,
      newAccount: mint,
      lamports: node.svm.minimumBalanceForRentExemption(MINT_SIZE),
      space: MINT_SIZE,
      programAddress: program,
    }),
    getInitializeMint2Instruction(
      { mint: mint.address, decimals, mintAuthority: payer.address },
      { programAddress: program },
    ),
  ]);
  if (failed) throw new Error('the mint could not be created');
  return mint.address;
}

export async function tokenAccountOf(owner: Address, mint: Address, program: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: program });
  return ata;
}

/** The associated token account of `owner` for `mint`, created and paid by `payer` (the ATA program's inner `createAccount`). */
export async function createTokenAccount(
  node: SolanaStandIn,
  payer: KeyPairSigner,
  owner: Address,
  mint: Address,
  program: Address,
): Promise<{ account: Address; signature: string }> {
  const account = await tokenAccountOf(owner, mint, program);
  const { signature, failed } = await node.send(payer, [
    getCreateAssociatedTokenInstruction({ payer, ata: account, owner, mint, tokenProgram: program }),
  ]);
  if (failed) throw new Error('the token account could not be created');
  return { account, signature };
}

export function mintTo(
  mint: Address,
  account: Address,
  authority: KeyPairSigner,
  amount: bigint,
  program: Address,
): Instruction {
  return getMintToInstruction({ mint, token: account, mintAuthority: authority, amount }, { programAddress: program });
}

export function transfer(
  source: Address,
  destination: Address,
  owner: KeyPairSigner,
  amount: bigint,
  program: Address,
): Instruction {
  return getTransferInstruction({ source, destination, authority: owner, amount }, { programAddress: program });
}

export function transferChecked(
  source: Address,
  mint: Address,
  destination: Address,
  owner: KeyPairSigner,
  amount: bigint,
  decimals: number,
  program: Address,
): Instruction {
  return getTransferCheckedInstruction(
    { source, mint, destination, authority: owner, amount, decimals },
    { programAddress: program },
  );
}

export function burnChecked(
  account: Address,
  mint: Address,
  owner: KeyPairSigner,
  amount: bigint,
  decimals: number,
  program: Address,
): Instruction {
  return getBurnCheckedInstruction({ account, mint, authority: owner, amount, decimals }, { programAddress: program });
}

export function sendSol(from: KeyPairSigner, to: Address, lamports: bigint): Instruction {
  return getTransferSolInstruction({ source: from, destination: to, amount: lamports });
}

/** A new account funded by `payer` with `createAccount` (a System Program movement of lamports). */
export async function createAccount(
  payer: KeyPairSigner,
  lamports: bigint,
): Promise<{ signer: KeyPairSigner; instruction: Instruction }> {
  const signer = await generateKeyPairSigner();
  const instruction = getCreateAccountInstruction({
    payer,
    newAccount: signer,
    lamports,
    space: 0n,
    programAddress: '11111111111111111111111111111111' as Address,
  });
  return { signer, instruction };
}
