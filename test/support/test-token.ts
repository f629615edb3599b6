import { Abi, Address, Hex, stringToHex, TransactionReceipt } from 'viem';
import bytes32TokenFixture from '../fixtures/erc20/bytes32-token.json';
import testTokenFixture from '../fixtures/erc20/test-token.json';
import { Anvil } from './anvil';

/**
 * Deploys and drives the test tokens of test/fixtures/erc20 on an anvil. Accounts are given as dev
 * account indexes (`anvil.accounts[i]`); addresses returned are lowercase. Every helper waits for
 * its transaction's receipt and throws when the transaction reverted: with automine off, mine
 * (`anvil.mine()`) while awaiting.
 */

/** OpenZeppelin ERC20 with deploy-time decimals and `mint(address,uint256)` open to anyone. */
export const testTokenAbi = testTokenFixture.abi as Abi;
/** A token whose `name()` and `symbol()` answer bytes32 (as MKR does), with `mint` and `transfer`. */
export const bytes32TokenAbi = bytes32TokenFixture.abi as Abi;

export interface TokenDeployment {
  name: string;
  symbol: string;
  decimals: number;
  /** Dev account index of the deployer, default 0. */
  from?: number;
}

export async function deployTestToken(anvil: Anvil, token: TokenDeployment): Promise<Address> {
  return deploy(anvil, token.from ?? 0, testTokenAbi, testTokenFixture.bytecode as Hex, [
    token.name,
    token.symbol,
    token.decimals,
  ]);
}

/** `name` and `symbol` are stored as bytes32, right-padded with zero bytes (at most 32 bytes each). */
export async function deployBytes32Token(anvil: Anvil, token: TokenDeployment): Promise<Address> {
  return deploy(anvil, token.from ?? 0, bytes32TokenAbi, bytes32TokenFixture.bytecode as Hex, [
    stringToHex(token.name, { size: 32 }),
    stringToHex(token.symbol, { size: 32 }),
    token.decimals,
  ]);
}

/** Mints `amount` base units to `to` (a Transfer from the zero address). Works on both tokens. */
export async function mint(
  anvil: Anvil,
  mint: { token: Address; to: Address; amount: bigint; from?: number },
): Promise<TransactionReceipt> {
  const hash = await anvil.walletClient(mint.from ?? 0).writeContract({
    address: mint.token,
    abi: testTokenAbi,
    functionName: 'mint',
    args: [mint.to, mint.amount],
  });
  return succeeded(anvil, hash);
}

/** Sends `amount` base units from dev account `from` to `to`. Works on both tokens. */
export async function transfer(
  anvil: Anvil,
  transfer: { token: Address; from: number; to: Address; amount: bigint },
): Promise<TransactionReceipt> {
  const hash = await anvil.walletClient(transfer.from).writeContract({
    address: transfer.token,
    abi: testTokenAbi,
    functionName: 'transfer',
    args: [transfer.to, transfer.amount],
  });
  return succeeded(anvil, hash);
}

/** The token balance of `owner` at the latest block, or at `blockNumber`. */
export async function balanceOf(anvil: Anvil, token: Address, owner: Address, blockNumber?: bigint): Promise<bigint> {
  return (await anvil.publicClient.readContract({
    address: token,
    abi: testTokenAbi,
    functionName: 'balanceOf',
    args: [owner],
    blockNumber,
  })) as bigint;
}

async function deploy(anvil: Anvil, from: number, abi: Abi, bytecode: Hex, args: unknown[]): Promise<Address> {
  const hash = await anvil.walletClient(from).deployContract({ abi, bytecode, args });
  const receipt = await succeeded(anvil, hash);
  if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
  return receipt.contractAddress.toLowerCase() as Address;
}

async function succeeded(anvil: Anvil, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}
