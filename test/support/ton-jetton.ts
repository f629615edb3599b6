import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFunc } from '@ton-community/func-js';
import { Address, beginCell, Cell, Dictionary, toNano, type Transaction } from '@ton/core';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import type { TonStandIn } from './toncenter-stand-in';

/**
 * chaintags' own test Jetton (test/support/ton-jetton/*.fc, TEP-74 and TEP-64 on-chain content),
 * compiled with func-js and run in the stand-in's sandbox.
 */

export const OP = {
  transfer: 0x0f8a7ea5,
  burn: 0x595f07bc,
  mint: 0x15,
} as const;

export interface JettonCode {
  minter: Cell;
  wallet: Cell;
}

let compiled: Promise<JettonCode> | undefined;

export function jettonCode(): Promise<JettonCode> {
  compiled ??= (async () => {
    const dir = join(__dirname, 'ton-jetton');
    const compile = async (target: string): Promise<Cell> => {
      const result = await compileFunc({
        targets: [target],
        sources: (path: string) => readFileSync(join(dir, path), 'utf8'),
      });
      if (result.status === 'error') throw new Error(`${target}: ${result.message}`);
      return Cell.fromBase64(result.codeBoc);
    };
    return { minter: await compile('jetton-minter.fc'), wallet: await compile('jetton-wallet.fc') };
  })();
  return compiled;
}

/** TEP-64 on-chain content: a dictionary of sha256(key) → snake-encoded value (prefix 0x00), behind the 0x00 layout byte. */
export function onChainContent(fields: Record<string, string>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [key, value] of Object.entries(fields)) {
    const hash = BigInt(`0x${createHash('sha256').update(key).digest('hex')}`);
    dict.set(hash, beginCell().storeUint(0, 8).storeStringTail(value).endCell());
  }
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}

/** TEP-64 off-chain content: layout byte 0x01 and a URI. */
export function offChainContent(uri: string): Cell {
  return beginCell().storeUint(1, 8).storeStringTail(uri).endCell();
}

export class TestJetton {
  private constructor(
    private readonly ton: TonStandIn,
    readonly master: Address,
    readonly admin: SandboxContract<TreasuryContract>,
  ) {}

  /** Deploys a minter administered by `admin`, with `content` (TEP-64). */
  static async deploy(ton: TonStandIn, admin: SandboxContract<TreasuryContract>, content: Cell): Promise<TestJetton> {
    const code = await jettonCode();
    const data = beginCell()
      .storeCoins(0)
      .storeAddress(admin.address)
      .storeRef(content)
      .storeRef(code.wallet)
      .endCell();
    const init = { code: code.minter, data };
    const address = new Address(0, beginCell().storeUint(6, 5).storeRef(code.minter).storeRef(data).endCell().hash());
    ton.record(await admin.send({ to: address, value: toNano('0.5'), init, bounce: false }));
    return new TestJetton(ton, address, admin);
  }

  /** The Jetton wallet address of `owner`, computed as the minter does. */
  async walletOf(owner: Address): Promise<Address> {
    const code = await jettonCode();
    const data = beginCell()
      .storeCoins(0)
      .storeAddress(owner)
      .storeAddress(this.master)
      .storeRef(code.wallet)
      .endCell();
    return new Address(0, beginCell().storeUint(6, 5).storeRef(code.wallet).storeRef(data).endCell().hash());
  }

  async mint(to: Address, amount: bigint): Promise<Transaction[]> {
    const body = beginCell()
      .storeUint(OP.mint, 32)
      .storeUint(0, 64)
      .storeAddress(to)
      .storeCoins(amount)
      .storeCoins(0)
      .endCell();
    return this.ton.record(await this.admin.send({ to: this.master, value: toNano('0.2'), body }));
  }

  /** `from` asks its Jetton wallet to send `amount` to `to`'s; the result's transactions are recorded. */
  async transfer(
    from: SandboxContract<TreasuryContract>,
    to: Address,
    amount: bigint,
    options: { forwardTon?: bigint; value?: bigint } = {},
  ): Promise<Transaction[]> {
    const body = beginCell()
      .storeUint(OP.transfer, 32)
      .storeUint(1, 64)
      .storeCoins(amount)
      .storeAddress(to)
      .storeAddress(from.address)
      .storeMaybeRef(null)
      .storeCoins(options.forwardTon ?? 0n)
      .storeBit(false)
      .endCell();
    const wallet = await this.walletOf(from.address);
    return this.ton.record(await from.send({ to: wallet, value: options.value ?? toNano('0.1'), body }));
  }

  async burn(from: SandboxContract<TreasuryContract>, amount: bigint): Promise<Transaction[]> {
    const body = beginCell()
      .storeUint(OP.burn, 32)
      .storeUint(2, 64)
      .storeCoins(amount)
      .storeAddress(from.address)
      .storeMaybeRef(null)
      .endCell();
    return this.ton.record(await from.send({ to: await this.walletOf(from.address), value: toNano('0.1'), body }));
  }

  async balanceOf(owner: Address): Promise<bigint> {
    const wallet = await this.ton.blockchain.getContract(await this.walletOf(owner));
    if (wallet.accountState?.type !== 'active') return 0n;
    const result = await this.ton.blockchain.runGetMethod(await this.walletOf(owner), 'get_wallet_data');
    return result.stackReader.readBigNumber();
  }
}
