import { parseConfig } from '../../config/config';
import type { FollowerRow, FollowRepository } from './follow.repository';
import { SyncService } from './sync.service';

function service(
  rows: FollowerRow[],
  pending = false,
  env: Record<string, string> = {},
  backfills = new Map<string, number>(),
): SyncService {
  const repository = {
    rows: () => Promise.resolve(rows),
    historyPending: () => Promise.resolve(pending),
    backfillAddresses: () => Promise.resolve(backfills),
  } as unknown as FollowRepository;
  return new SyncService(parseConfig({ RPC_URL_BASE: 'http://127.0.0.1:8545', ...env }), repository);
}

const now = new Date('2026-11-23T12:00:00.000Z');
const row = (overrides: Partial<FollowerRow>): FollowerRow => ({
  chain: 'base',
  head_block: '120',
  indexed_block: '100',
  status: 'synced',
  error: null,
  reported_at: '2026-11-23T11:59:59.000Z',
  ...overrides,
});

describe('SyncService', () => {
  it('answers every chain in the registry order, off without an RPC URL even when a row remains', async () => {
    const answers = await service([row({}), row({ chain: 'ethereum' })]).list(now);
    expect(answers.map((answer) => answer.chain)).toHaveLength(13);
    expect(answers.find((answer) => answer.chain === 'ethereum')).toMatchObject({ status: 'off', confirmations: 12 });
    expect(answers.find((answer) => answer.chain === 'base')).toEqual({
      chain: 'base',
      status: 'synced',
      head_block: '120',
      indexed_block: '100',
      confirmations: 30,
      error: null,
      updated_at: '2026-11-23T11:59:59.000Z',
      backfill_addresses: 0,
    });
  });

  it('is syncing before the first report and while history is still to read', async () => {
    expect((await service([]).list(now)).find((a) => a.chain === 'base')).toMatchObject({
      status: 'syncing',
      head_block: null,
      indexed_block: null,
      updated_at: null,
    });
    expect((await service([row({})], true).list(now)).find((a) => a.chain === 'base')!.status).toBe('syncing');
  });

  it('counts the addresses of backfills not done, and is syncing while there are some', async () => {
    const backfills = new Map([
      ['base', 7],
      ['ethereum', 2],
    ]);
    const answers = await service([row({}), row({ chain: 'ethereum' })], false, {}, backfills).list(now);
    expect(answers.find((a) => a.chain === 'base')).toMatchObject({ status: 'syncing', backfill_addresses: 7 });
    expect(answers.find((a) => a.chain === 'ethereum')).toMatchObject({ status: 'off', backfill_addresses: 2 });
    expect(answers.find((a) => a.chain === 'bitcoin')).toMatchObject({ status: 'off', backfill_addresses: 0 });
    const failing = row({ status: 'error', error: 'down' });
    expect((await service([failing], false, {}, backfills).list(now)).find((a) => a.chain === 'base')).toMatchObject({
      status: 'error',
      backfill_addresses: 7,
    });
  });

  it("passes a follower's error on, and calls a follower silent for over a minute failing", async () => {
    const failing = row({ status: 'error', error: 'the node answers chain id 5, not 8453 (Base)' });
    expect((await service([failing]).list(now)).find((a) => a.chain === 'base')).toMatchObject({
      status: 'error',
      error: 'the node answers chain id 5, not 8453 (Base)',
    });
    const silent = row({ reported_at: '2026-11-23T11:58:30.000Z' });
    const answer = (await service([silent]).list(now)).find((a) => a.chain === 'base')!;
    expect(answer.status).toBe('error');
    expect(answer.error).toMatch(/no process has reported following this chain for 90 s/);
    // Ten intervals when they are longer than a minute.
    const slow = (await service([silent], false, { FOLLOW_INTERVAL_MS: '12000' }).list(now)).find(
      (a) => a.chain === 'base',
    )!;
    expect(slow.status).toBe('synced');
  });
});
