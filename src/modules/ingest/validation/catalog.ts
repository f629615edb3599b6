import type { ChainRecord, DataRecord, HoldingRecord, PriceRecord, TokenRecord } from '../../../core/records/records';

/**
 * What a record may refer to: the chains with their ids, the known tokens and which token owns each
 * (chain, token address) deployment. It starts as the database's state and learns every accepted
 * `token` record, so a later record of the same run (a later line of a file) can refer to a token or
 * deployment defined earlier in it. Only token records make it grow; holdings and transactions
 * never do, so an input of any size needs no more memory than the token list.
 */
export class Catalog {
  private readonly tokens: Set<string>;
  private readonly deploymentOwners: Map<string, string>;

  constructor(
    private readonly chainIds: ReadonlyMap<string, number>,
    tokens: Iterable<string>,
    deployments: Iterable<{ chain: string; address: string; token_id: string }>,
  ) {
    this.tokens = new Set(tokens);
    this.deploymentOwners = new Map();
    for (const deployment of deployments) {
      this.deploymentOwners.set(deploymentKey(deployment.chain, deployment.address), deployment.token_id);
    }
  }

  /** Why the record cannot be imported given everything known so far, or undefined when it can. */
  problemWith(record: DataRecord): string | undefined {
    switch (record.type) {
      case 'chain':
        return this.chainProblem(record);
      case 'token':
        return this.tokenProblem(record);
      case 'price':
        return this.priceProblem(record);
      case 'holding':
        return this.holdingProblem(record);
      case 'transaction':
        return undefined;
    }
  }

  /** Takes in an accepted record; call it only for records without a problem. */
  learn(record: DataRecord): void {
    if (record.type !== 'token') return;
    this.tokens.add(record.id);
    for (const deployment of record.deployments) {
      this.deploymentOwners.set(deploymentKey(deployment.chain, deployment.address), record.id);
    }
  }

  private chainProblem(record: ChainRecord): string | undefined {
    const known = this.chainIds.get(record.chain);
    if (known === undefined) return `chain: ${record.chain} is not in the database`;
    if (known !== record.chainId) return `chain: chainId of ${record.chain} is ${known}, not ${record.chainId}`;
    return undefined;
  }

  private tokenProblem(record: TokenRecord): string | undefined {
    for (const deployment of record.deployments) {
      const owner = this.deploymentOwners.get(deploymentKey(deployment.chain, deployment.address));
      if (owner !== undefined && owner !== record.id) {
        return `token: ${deployment.chain} ${deployment.address} already belongs to the token "${owner}"`;
      }
    }
    return undefined;
  }

  private priceProblem(record: PriceRecord): string | undefined {
    if (this.tokens.has(record.token_id)) return undefined;
    return `price: unknown token_id "${record.token_id}" (not in the database, nor in an earlier token line)`;
  }

  private holdingProblem(record: HoldingRecord): string | undefined {
    if (this.deploymentOwners.has(deploymentKey(record.chain, record.token_address))) return undefined;
    return `holding: no token is deployed at token_address ${record.token_address} on ${record.chain} (add a token line first)`;
  }
}

// Chain identifiers contain no space, so the first space separates the two parts unambiguously.
function deploymentKey(chain: string, address: string): string {
  return `${chain} ${address}`;
}
