import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import type { ChainId } from '../../core/chains/chain-ids';
import { chainFacts } from '../../core/chains/chain-registry';
import { APP_CONFIG, AppConfig, FollowConfig } from '../../config/config';
import { IngestService } from '../ingest/ingest.service';
import { WebhookAnnouncements } from '../webhooks/webhook-announcements.service';
import { ChainFollower, DEFAULT_TUNING, FollowerReport } from './chain-follower';
import { FollowRepository } from './follow.repository';
import { describeNodeError } from './node-errors';
import { sourceFor } from './sources';
import { UtxoRepository } from './utxo/utxo.repository';
import { TonRepository } from './ton/ton.repository';

/** How long `follow --check` waits for one node's answers. */
export const NODE_CHECK_TIMEOUT_MS = 30_000;

/** One chain's node as `follow --check` found it. */
export interface NodeCheck {
  chain: ChainId;
  /** Reachable and the chain's (its network, chain id or genesis as the follower checks them). */
  ok: boolean;
  /** The node's newest block, as the follower reads it. */
  head: string | null;
  /** The block indexed in the database, null before the chain was first followed. */
  indexed: string | null;
  /** How far the node's head is ahead of the indexed block (the confirmations kept back included). */
  behind: string | null;
  /** Why not ok, without the node's URL. */
  error: string | null;
}

/** Whether the followers start with the Nest application or context (FollowModule.forRoot). */
export const FOLLOW_ON_START = Symbol('FOLLOW_ON_START');

/**
 * Runs one ChainFollower per chain that has an RPC URL. They start with the application (unless
 * FOLLOW=off for the server; the `follow` command always starts them) and stop before it shuts
 * down: after the HTTP server drained, each finishes or rolls back its turn and gives up its
 * chain's lease, so another process takes over at once.
 */
@Injectable()
export class FollowService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Follow');
  private readonly settings: FollowConfig;
  private readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly followers: ChainFollower[] = [];
  private readonly reports = new Map<ChainId, FollowerReport>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(FOLLOW_ON_START) private readonly onStart: boolean,
    private readonly repository: FollowRepository,
    private readonly ingest: IngestService,
    private readonly utxo: UtxoRepository,
    private readonly ton: TonRepository,
    // Absent in a context without the webhooks module: then nothing is announced.
    @Optional() private readonly announcements?: WebhookAnnouncements,
  ) {
    this.settings = config.follow;
  }

  /** The chains this process follows (those with an RPC URL). */
  followedChains(): string[] {
    return this.settings.chains.filter((chain) => chain.rpcUrls.length > 0).map((chain) => chain.chain);
  }

  /** The last report of each chain this process follows or stands by for. */
  latest(): ReadonlyMap<ChainId, FollowerReport> {
    return this.reports;
  }

  onApplicationBootstrap(): void {
    if (!this.onStart) {
      if (this.followedChains().length > 0) this.logger.log('FOLLOW=off: this process serves the API only');
      return;
    }
    this.start();
  }

  start(): void {
    if (this.followers.length > 0) return;
    for (const settings of this.settings.chains) {
      if (settings.rpcUrls.length === 0) continue;
      const source = sourceFor(chainFacts(settings.chain), settings, { utxo: this.utxo, ton: this.ton });
      if (source === undefined) continue;
      const follower = new ChainFollower({
        settings,
        source,
        intervalMs: this.settings.intervalMs,
        holder: this.holder,
        repository: this.repository,
        ingest: this.ingest,
        tuning: {
          ...DEFAULT_TUNING,
          leaseMs: this.settings.leaseMs,
          standbyMs: Math.min(DEFAULT_TUNING.standbyMs, this.settings.leaseMs / 4),
        },
        onReport: (report) => this.record(settings.chain, report),
        announce: this.announcements,
      });
      this.followers.push(follower);
      follower.start();
    }
    if (this.followers.length === 0) {
      this.logger.log('no chain has an RPC URL (RPC_URL_<CHAIN>): data arrives by import only');
    }
  }

  /**
   * Asks each chain's node once, as a follower's turn begins: whether it is the chain's (`mismatch`)
   * and its head, beside the block indexed in the database. Chains at once, each within
   * `timeoutMs`; nothing is written (no position, no report). What `follow --check` prints.
   */
  async checkNodes(timeoutMs = NODE_CHECK_TIMEOUT_MS): Promise<NodeCheck[]> {
    const chains = this.settings.chains.filter((settings) => settings.rpcUrls.length > 0);
    return Promise.all(
      chains.map(async (settings): Promise<NodeCheck> => {
        const { chain, rpcUrls } = settings;
        const { block } = await this.repository.position(chain);
        const indexed = block === undefined ? null : block.toString();
        const source = sourceFor(chainFacts(chain), settings, { utxo: this.utxo, ton: this.ton });
        if (source === undefined) {
          return { chain, ok: false, head: null, indexed, behind: null, error: 'cannot be followed' };
        }
        try {
          const head = await withinMs(timeoutMs, async () => {
            const mismatch = await source.mismatch();
            if (mismatch !== undefined) throw new Error(mismatch);
            return source.head();
          });
          const behind = block === undefined ? null : (head > block ? head - block : 0n).toString();
          return { chain, ok: true, head: head.toString(), indexed, behind, error: null };
        } catch (error) {
          return { chain, ok: false, head: null, indexed, behind: null, error: describeNodeError(error, rpcUrls) };
        }
      }),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.followers.map((follower) => follower.stop()));
  }

  private record(chain: ChainId, report: FollowerReport): void {
    this.reports.set(chain, report);
  }
}

/** `work`'s result, or an error once `timeoutMs` passed without one. */
async function withinMs<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([work(), expired]);
  } finally {
    clearTimeout(timer);
  }
}
