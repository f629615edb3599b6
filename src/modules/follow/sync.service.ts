import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ChainId } from '../../core/chains/chain-ids';
import { chainFacts, CHAINS } from '../../core/chains/chain-registry';
import { APP_CONFIG, AppConfig, FollowConfig } from '../../config/config';
import { toIso } from '../../database/dialect';
import { FollowerState, Metrics } from '../../http/metrics/metrics.service';
import { SyncDto } from './dto/sync.dto';
import { FollowerRow, FollowRepository } from './follow.repository';
import { sharedWhileInFlight } from './in-flight';
import { addressShapeFor } from './sources';

/** A follower that has not reported for this long (and at least 10 of its intervals) is reported as failing. */
const SILENCE_MS = 60_000;

/**
 * `GET /v2/sync` (contract §10): read from the followers' rows, which the process following each
 * chain writes after every turn, so any process sharing the database answers the same. A chain
 * without an RPC URL in this process's settings is `off`; one whose follower has gone silent is
 * `error`, so that a chain nobody follows any more does not look synced forever. A chain with a
 * tracked address its follower has not taken in yet, or a backfill not done, is `syncing`,
 * whatever the last turn said.
 */
@Injectable()
export class SyncService {
  private readonly follow: FollowConfig;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: FollowRepository,
    // Absent in a context without the HTTP server's metrics (the `follow` command).
    @Optional() metrics?: Metrics,
  ) {
    this.follow = config.follow;
    // The gauges of one scrape, collected at once, share one reading.
    metrics?.observeFollowers(sharedWhileInFlight(() => this.followed()));
  }

  /** The followed chains (not `off`) as `list` answers them, for the metrics. */
  private async followed(): Promise<FollowerState[]> {
    return (await this.list()).flatMap((answer) =>
      answer.status === 'off'
        ? []
        : [
            {
              chain: answer.chain as ChainId,
              status: answer.status,
              head: answer.head_block === null ? undefined : BigInt(answer.head_block),
              indexed: answer.indexed_block === null ? undefined : BigInt(answer.indexed_block),
              updatedAt: answer.updated_at === null ? undefined : Date.parse(answer.updated_at),
              backfillAddresses: answer.backfill_addresses,
            },
          ],
    );
  }

  async list(now = new Date()): Promise<SyncDto[]> {
    const rows = new Map((await this.repository.rows()).map((row) => [row.chain, row]));
    const silence = Math.max(SILENCE_MS, 10 * this.follow.intervalMs);
    const answers = CHAINS.map((chain) => {
      const settings = this.follow.chains.find((entry) => entry.chain === chain.id)!;
      const row = rows.get(chain.id);
      const base: SyncDto = {
        chain: chain.id,
        status: 'off',
        head_block: digits(row?.head_block),
        indexed_block: digits(row?.indexed_block),
        confirmations: settings.confirmations,
        error: null,
        updated_at: row?.reported_at === null || row?.reported_at === undefined ? null : toIso(row.reported_at),
        backfill_addresses: 0,
      };
      if (settings.rpcUrls.length === 0) return base;
      return { ...base, ...followedStatus(row, base.updated_at, now, silence) };
    });
    // An address tracked since the follower's last turn has its history still to read.
    for (const answer of answers) {
      const shape = addressShapeFor(chainFacts(answer.chain as ChainId));
      if (
        answer.status === 'synced' &&
        shape !== undefined &&
        (await this.repository.historyPending(answer.chain as ChainId, shape))
      ) {
        answer.status = 'syncing';
      }
    }
    // Read last: a backfill seen here exists now, so a chain that has one is syncing now.
    const backfills = await this.repository.backfillAddresses();
    for (const answer of answers) {
      answer.backfill_addresses = backfills.get(answer.chain) ?? 0;
      if (answer.status === 'synced' && answer.backfill_addresses > 0) answer.status = 'syncing';
    }
    return answers;
  }
}

function followedStatus(
  row: FollowerRow | undefined,
  updatedAt: string | null,
  now: Date,
  silenceMs: number,
): Pick<SyncDto, 'status' | 'error'> {
  if (row === undefined || updatedAt === null) return { status: 'syncing', error: null };
  const silentFor = now.getTime() - Date.parse(updatedAt);
  if (row.status !== 'error' && silentFor > silenceMs) {
    return {
      status: 'error',
      error: `no process has reported following this chain for ${Math.round(silentFor / 1000)} s (is a follower running, with FOLLOW on or \`cli follow\`?)`,
    };
  }
  if (row.status === 'error') return { status: 'error', error: row.error ?? 'the follower failed' };
  return { status: row.status === 'synced' ? 'synced' : 'syncing', error: null };
}

function digits(value: string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}
