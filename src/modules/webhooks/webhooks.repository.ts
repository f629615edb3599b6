import { Injectable } from '@nestjs/common';
import { binaryOrder } from '../../core/text/binary-order';
import { Db, Sql } from '../../database/db.service';
import { forKeyShare, forUpdate } from '../../database/dialect';
import { chunks, empty, join, list, pageBesideTotal, raw, rows, splitPage, sql } from '../../database/sql';

export interface WebhookRow {
  id: string;
  account_id: number | string;
  url: string;
  chains: string | null;
  events: string;
  description: string | null;
  min_value_usd: string | number | null;
  tokens: string | null;
  status: string;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface NewWebhook {
  id: string;
  accountId: number;
  url: string;
  secret: string;
  chains: string[] | null;
  events: string[];
  description: string | null;
  minValueUsd: string | null;
  tokens: string[] | null;
  tags: string[];
  at: string;
  /** The creation's Idempotency-Key and its request's fingerprint (src/modules/webhooks/idempotency.ts), if it had one. */
  idempotency: { key: string; fingerprint: string } | null;
}

/** The webhook an Idempotency-Key created, with what a replay of its creation answers. */
export interface KeyedWebhook {
  id: string;
  secret: string;
  request_fingerprint: string;
}

export interface WebhookChanges {
  url?: string;
  chains?: string[] | null;
  events?: string[];
  description?: string | null;
  min_value_usd?: string | null;
  tokens?: string[] | null;
  status?: string;
  tags?: string[];
}

export interface DeliveryRow {
  id: string;
  event_type: string;
  status: string;
  attempts: number | string;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string | null;
  response_status: number | string | null;
  error: string | null;
  created_at: Date | string;
}

/** An event to write into the outbox. */
export interface NewEvent {
  id: string;
  webhookId: string;
  type: string;
  chain: string | null;
  blockNumber: string | null;
  transferId: string | null;
  body: string;
  at: string;
}

/** Who listens for a transfer of an address: one row per (webhook, tag carried by the address). */
export interface Listener {
  webhook_id: string;
  chains: string | null;
  events: string;
  min_value_usd: string | number | null;
  tokens: string | null;
  tag: string;
  address: string;
}

/** A transfer's token as an event names it, with its newest USD price (undefined without one). */
export interface PricedToken {
  id: string;
  symbol: string;
  decimals: number;
  usd: string | undefined;
}

/** A `transaction.confirmed` still standing, whose transfer a rewind may undo. */
export interface Announced {
  seq: number | string;
  webhook_id: string;
  transfer_id: string;
  body: string;
  events: string;
}

/** A pending event, due, with what its delivery needs. */
export interface DueEvent {
  seq: number | string;
  id: string;
  webhook_id: string;
  event_type: string;
  body: string;
  attempts: number | string;
  created_at: Date | string;
  url: string;
  secret: string;
}

/** One attempt's outcome, to record (with the time it is recorded). */
export interface RecordedAttempt {
  kind: 'delivered' | 'retry' | 'failed';
  seq: number | string;
  webhookId: string;
  /** When the event was recorded (the disable rule compares it with the last success). */
  createdAt: string;
  status: number | null;
  error: string | null;
  /** The pause before the next attempt, for `retry`. */
  retryInSeconds?: number;
}

const WEBHOOK_COLUMNS = sql`id, account_id, url, chains, events, description, min_value_usd, tokens, status, created_at,
  updated_at`;

@Injectable()
export class WebhooksRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The account's webhooks, counted under a lock on the account so that two creates cannot both pass the cap. */
  async countLocked(tx: Sql, accountId: number): Promise<number> {
    await tx.query(sql`SELECT id FROM accounts WHERE id = ${accountId}${forUpdate(tx.dialect)}`);
    const [row] = await tx.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ${accountId}`,
    );
    return Number(row?.n ?? 0);
  }

  async insert(tx: Sql, webhook: NewWebhook): Promise<void> {
    await tx.execute(
      sql`INSERT INTO webhooks (id, account_id, url, secret, chains, events, description, min_value_usd, tokens, status,
                                created_at, updated_at, idempotency_key, request_fingerprint)
          VALUES (${webhook.id}, ${webhook.accountId}, ${webhook.url}, ${webhook.secret},
                  ${webhook.chains === null ? null : JSON.stringify(webhook.chains)}, ${JSON.stringify(webhook.events)},
                  ${webhook.description}, ${webhook.minValueUsd},
                  ${webhook.tokens === null ? null : JSON.stringify(webhook.tokens)}, 'active', ${webhook.at}, ${webhook.at},
                  ${webhook.idempotency?.key ?? null}, ${webhook.idempotency?.fingerprint ?? null})`,
    );
    await this.replaceTags(tx, webhook.id, webhook.tags);
  }

  /** The account's webhook created with the Idempotency-Key `key`, if there is one (read in `tx` if given). */
  async findByIdempotencyKey(
    accountId: number,
    key: string,
    tx: Sql | Db = this.db,
  ): Promise<KeyedWebhook | undefined> {
    const [row] = await tx.query<KeyedWebhook>(
      sql`SELECT id, secret, request_fingerprint FROM webhooks WHERE account_id = ${accountId} AND idempotency_key = ${key}`,
    );
    return row;
  }

  /**
   * The account's webhooks that listen to the tag `from` listen to `to` instead, in the rename's
   * transaction (TagRenames); one that listened to both names keeps one.
   */
  async tagRenamed(tx: Sql, accountId: number, from: string, to: string): Promise<void> {
    const listening = sql`SELECT w.id FROM webhooks w JOIN webhook_tags n ON n.webhook_id = w.id AND n.tag = ${to}
      WHERE w.account_id = ${accountId}`;
    await tx.execute(sql`DELETE FROM webhook_tags WHERE tag = ${from} AND webhook_id IN (${listening})`);
    await tx.execute(
      sql`UPDATE webhook_tags SET tag = ${to}
          WHERE tag = ${from} AND webhook_id IN (SELECT id FROM webhooks WHERE account_id = ${accountId})`,
    );
  }

  private async replaceTags(tx: Sql, id: string, tags: readonly string[]): Promise<void> {
    await tx.execute(sql`DELETE FROM webhook_tags WHERE webhook_id = ${id}`);
    if (tags.length > 0) {
      await tx.execute(sql`INSERT INTO webhook_tags (webhook_id, tag) VALUES ${rows(tags.map((tag) => [id, tag]))}`);
    }
  }

  async find(accountId: number, id: string): Promise<WebhookRow | undefined> {
    const [row] = await this.db.query<WebhookRow>(
      sql`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ${id} AND account_id = ${accountId}`,
    );
    return row;
  }

  async tagsOf(ids: readonly string[]): Promise<Map<string, string[]>> {
    const tags = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return tags;
    const found = await this.db.query<{ webhook_id: string; tag: string }>(
      sql`SELECT webhook_id, tag FROM webhook_tags WHERE webhook_id IN (${list(ids)})`,
    );
    for (const row of found) tags.get(row.webhook_id)?.push(row.tag);
    return tags;
  }

  /** A page of the account's webhooks (oldest first), and how many it has, in one statement (`pageBesideTotal`). */
  async page(accountId: number, offset: number, limit: number): Promise<{ total: number; rows: WebhookRow[] }> {
    const found = await this.db.query<WebhookRow & { total: number | string }>(
      pageBesideTotal(
        sql`SELECT COUNT(*) AS total FROM webhooks WHERE account_id = ${accountId}`,
        sql`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = ${accountId}
            ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`,
        raw('page.created_at, page.id'),
      ),
    );
    return splitPage(found, 'id')!;
  }

  /**
   * Applies `changes` to the account's webhook; false when it has none such. Setting it `active`
   * makes its pending deliveries due at once (they waited while it was paused or disabled).
   */
  /**
   * Changes the webhook; `holdTags`, given with new tags, checks them in the transaction once the
   * webhook's row is locked, before they are written (TagScopeService.holdTags).
   */
  async update(
    accountId: number,
    id: string,
    changes: WebhookChanges,
    at: string,
    holdTags?: (tx: Sql) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const sets = [sql`updated_at = ${at}`];
      if (changes.url !== undefined) sets.push(sql`url = ${changes.url}`);
      if (changes.chains !== undefined)
        sets.push(sql`chains = ${changes.chains === null ? null : JSON.stringify(changes.chains)}`);
      if (changes.events !== undefined) sets.push(sql`events = ${JSON.stringify(changes.events)}`);
      if (changes.description !== undefined) sets.push(sql`description = ${changes.description}`);
      if (changes.min_value_usd !== undefined) sets.push(sql`min_value_usd = ${changes.min_value_usd}`);
      if (changes.tokens !== undefined)
        sets.push(sql`tokens = ${changes.tokens === null ? null : JSON.stringify(changes.tokens)}`);
      if (changes.status !== undefined) sets.push(sql`status = ${changes.status}`);
      const changed = await tx.execute(
        sql`UPDATE webhooks SET ${join(sets)} WHERE id = ${id} AND account_id = ${accountId}`,
      );
      if (changed === 0) return false;
      await holdTags?.(tx);
      if (changes.tags !== undefined) await this.replaceTags(tx, id, changes.tags);
      if (changes.status === 'active') {
        await tx.execute(
          sql`UPDATE webhook_events SET next_attempt_at = ${at} WHERE webhook_id = ${id} AND status = 'pending'`,
        );
      }
      return true;
    });
  }

  async setSecret(accountId: number, id: string, secret: string, at: string): Promise<boolean> {
    const changed = await this.db.execute(
      sql`UPDATE webhooks SET secret = ${secret}, updated_at = ${at} WHERE id = ${id} AND account_id = ${accountId}`,
    );
    return changed > 0;
  }

  /** Deletes the webhook with its tags and events (so nothing more is delivered for it). */
  async delete(accountId: number, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [owned] = await tx.query(
        sql`SELECT id FROM webhooks WHERE id = ${id} AND account_id = ${accountId}${forUpdate(tx.dialect)}`,
      );
      if (owned === undefined) return false;
      await tx.execute(sql`DELETE FROM webhook_events WHERE webhook_id = ${id}`);
      await tx.execute(sql`DELETE FROM webhook_tags WHERE webhook_id = ${id}`);
      await tx.execute(sql`DELETE FROM webhooks WHERE id = ${id}`);
      return true;
    });
  }

  async insertEvents(tx: Sql | Db, events: readonly NewEvent[]): Promise<void> {
    for (const batch of chunks(events, 200)) {
      await tx.execute(
        sql`INSERT INTO webhook_events (id, webhook_id, event_type, chain, block_number, transfer_id, body, status, attempts, next_attempt_at, created_at)
            VALUES ${join(
              batch.map(
                (event) =>
                  sql`(${event.id}, ${event.webhookId}, ${event.type}, ${event.chain}, ${event.blockNumber === null ? null : BigInt(event.blockNumber)}, ${event.transferId}, ${event.body}, 'pending', 0, ${event.at}, ${event.at})`,
              ),
            )}`,
      );
    }
  }

  /**
   * A page of a webhook's deliveries (newest first; those in `status` only, if given), and how many
   * there are, in one statement (`pageBesideTotal`).
   */
  async pageDeliveries(
    webhookId: string,
    offset: number,
    limit: number,
    status?: string,
  ): Promise<{ total: number; rows: DeliveryRow[] }> {
    const which = status === undefined ? empty : sql`AND status = ${status}`;
    const found = await this.db.query<DeliveryRow & { total: number | string }>(
      pageBesideTotal(
        sql`SELECT COUNT(*) AS total FROM webhook_events WHERE webhook_id = ${webhookId} ${which}`,
        sql`SELECT seq, id, event_type, status, attempts, last_attempt_at, next_attempt_at, response_status, error, created_at
            FROM webhook_events WHERE webhook_id = ${webhookId} ${which} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`,
        raw('page.seq DESC'),
      ),
    );
    return splitPage(found, 'id')!;
  }

  /** One delivery of the webhook's log, with the body every attempt posts. */
  async findDelivery(webhookId: string, id: string): Promise<(DeliveryRow & { body: string }) | undefined> {
    const [found] = await this.db.query<DeliveryRow & { body: string }>(
      sql`SELECT id, event_type, status, attempts, last_attempt_at, next_attempt_at, response_status, error, created_at, body
          FROM webhook_events WHERE id = ${id} AND webhook_id = ${webhookId}`,
    );
    return found;
  }

  /**
   * Makes the webhook's chosen deliveries pending again, due now: the `failed` ones recorded at or
   * after `since`, or those of `ids` that are `failed` or `delivered`. A pending delivery is on its
   * way already and is left as it is; a `transaction.confirmed` whose transfer a reorganisation
   * undid is not sent again. Answers how many are pending again.
   */
  async redeliver(
    tx: Sql,
    webhookId: string,
    chosen: { since: string } | { ids: readonly string[] },
    now: string,
  ): Promise<number> {
    const which =
      'since' in chosen
        ? sql`status = 'failed' AND created_at >= ${chosen.since}`
        : sql`status IN ('failed', 'delivered') AND id IN (${list(chosen.ids)})`;
    return tx.execute(
      sql`UPDATE webhook_events SET status = 'pending', next_attempt_at = ${now}
          WHERE webhook_id = ${webhookId} AND undone = 0 AND ${which}`,
    );
  }

  /**
   * Of `ids`, the webhooks that exist, each held (FOR KEY SHARE) until `tx` ends, so that the
   * events `tx` writes for them find them: a deletion under way is waited for, and the id of one
   * that committed is left out. Events are written only for webhooks held so.
   */
  async holdWebhooks(tx: Sql, ids: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const batch of chunks([...new Set(ids)].sort(binaryOrder))) {
      const found = await tx.query<{ id: string }>(
        sql`SELECT id FROM webhooks WHERE id IN (${list(batch)}) ORDER BY id${forKeyShare(tx.dialect)}`,
      );
      for (const row of found) held.add(row.id);
    }
    return held;
  }

  // ---- announcing, inside a follower's transaction ----

  /** Whether any webhook listens for new transfers at all: most commits stop here. */
  async anyListening(tx: Sql): Promise<boolean> {
    const found = await tx.query(sql`SELECT 1 AS one FROM webhooks WHERE status = 'active' LIMIT 1`);
    return found.length > 0;
  }

  /**
   * The active webhooks listening to `addresses` through their tags, as the tags stand in this
   * transaction: a real tag through address_tags, `0` through tracked_addresses without a tag.
   */
  async listeners(tx: Sql, addresses: readonly string[]): Promise<Listener[]> {
    const found: Listener[] = [];
    for (const batch of chunks(addresses)) {
      found.push(
        ...(await tx.query<Listener>(
          sql`SELECT w.id AS webhook_id, w.chains, w.events, w.min_value_usd, w.tokens, t.name AS tag, a.address
              FROM webhooks w
              JOIN webhook_tags wt ON wt.webhook_id = w.id
              JOIN tags t ON t.account_id = w.account_id AND t.name = wt.tag
              JOIN address_tags a ON a.tag_id = t.id
              WHERE w.status = 'active' AND a.address IN (${list(batch)})
              UNION ALL
              SELECT w.id AS webhook_id, w.chains, w.events, w.min_value_usd, w.tokens, wt.tag, ta.address
              FROM webhooks w
              JOIN webhook_tags wt ON wt.webhook_id = w.id AND wt.tag = '0'
              JOIN tracked_addresses ta ON ta.account_id = w.account_id
              WHERE w.status = 'active' AND ta.address IN (${list(batch)})
                AND NOT EXISTS (SELECT 1 FROM address_tags x WHERE x.account_id = ta.account_id AND x.address = ta.address)`,
        )),
      );
    }
    return found;
  }

  /** Which of `ids` no token has. */
  async unknownTokens(ids: readonly string[]): Promise<string[]> {
    const known = new Set<string>();
    for (const batch of chunks([...new Set(ids)])) {
      for (const row of await this.db.query<{ id: string }>(sql`SELECT id FROM tokens WHERE id IN (${list(batch)})`)) {
        known.add(row.id);
      }
    }
    return ids.filter((id) => !known.has(id));
  }

  /**
   * The token at each of `tokenAddresses` on `chain` (its id, symbol and decimals) with its newest
   * USD price (undefined without one), by token address: what an event tells of its transfer's
   * token, and what a webhook's `min_value_usd` is compared with.
   */
  async tokensAt(tx: Sql, chain: string, tokenAddresses: readonly string[]): Promise<Map<string, PricedToken>> {
    const found = new Map<string, PricedToken>();
    for (const batch of chunks([...new Set(tokenAddresses)])) {
      const priced = await tx.query<{
        address: string;
        id: string;
        symbol: string;
        decimals: number | string;
        usd: string | number | null;
      }>(
        sql`SELECT d.address, t.id, t.symbol, d.decimals,
                   (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
            FROM token_deployments d JOIN tokens t ON t.id = d.token_id
            WHERE d.chain = ${chain} AND d.address IN (${list(batch)})`,
      );
      for (const row of priced) {
        found.set(row.address, {
          id: row.id,
          symbol: row.symbol,
          decimals: Number(row.decimals),
          usd: row.usd === null ? undefined : String(row.usd),
        });
      }
    }
    return found;
  }

  /**
   * The standing `transaction.confirmed` events of `chain` above `block`, marked undone in the same
   * go; their webhooks held first (holdWebhooks), a webhook's deletion before they are touched.
   */
  async undoAnnouncedAbove(tx: Sql, chain: string, block: bigint): Promise<Announced[]> {
    const standing = await tx.query<Announced>(
      sql`SELECT e.seq, e.webhook_id, e.transfer_id, e.body, w.events
          FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id
          WHERE e.chain = ${chain} AND e.block_number > ${block} AND e.event_type = 'transaction.confirmed' AND e.undone = 0`,
    );
    if (standing.length === 0) return [];
    const held = await this.holdWebhooks(
      tx,
      standing.map((row) => row.webhook_id),
    );
    const found = standing.filter((row) => held.has(row.webhook_id));
    for (const batch of chunks(found)) {
      await tx.execute(sql`UPDATE webhook_events SET undone = 1 WHERE seq IN (${list(batch.map((row) => row.seq))})`);
    }
    return found;
  }

  // ---- the dispatcher ----

  async claimLease(holder: string, now: Date, until: Date): Promise<boolean> {
    const changed = await this.db.execute(
      sql`UPDATE webhook_dispatcher SET holder = ${holder}, lease_until = ${until.toISOString()}
          WHERE id = 1 AND (holder = ${holder} OR holder IS NULL OR lease_until < ${now.toISOString()})`,
    );
    return changed === 1;
  }

  async releaseLease(holder: string): Promise<void> {
    await this.db.execute(
      sql`UPDATE webhook_dispatcher SET holder = NULL, lease_until = NULL WHERE id = 1 AND holder = ${holder}`,
    );
  }

  /**
   * Due events of the webhooks that may be delivered to (active; a ping goes to any), oldest due
   * first: at most `room` in all and `perWebhook` less those in flight (`busy`) per webhook. Each
   * is claimed by moving its next attempt to `claimedUntil`, so that a process that takes over the
   * lease meanwhile does not send it too. The statement walks the pending index in due order and
   * stops at its limit; webhooks already at their share are left out of it, so one webhook's
   * backlog delays another's by one turn at most.
   */
  async claimDue(
    now: Date,
    perWebhook: number,
    room: number,
    claimedUntil: Date,
    busy: ReadonlyMap<string, number>,
  ): Promise<DueEvent[]> {
    const full = [...busy].filter(([, count]) => count >= perWebhook).map(([id]) => id);
    const due = sql`SELECT e.seq, e.id, e.webhook_id, e.event_type, e.body, e.attempts, e.created_at, w.url, w.secret
          FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id
          WHERE e.status = 'pending' AND e.next_attempt_at <= ${now.toISOString()}
            AND (w.status = 'active' OR e.event_type = 'webhook.ping')
            ${full.length > 0 ? sql`AND e.webhook_id NOT IN (${list(full)})` : empty}
          ORDER BY e.next_attempt_at LIMIT ${room}`;
    // Most turns find nothing: they look without taking the write lock.
    if ((await this.db.query(due)).length === 0) return [];
    return this.db.transaction(async (tx) => {
      const taken = new Map(busy);
      const claimed = (await tx.query<DueEvent>(due)).filter((row) => {
        const count = taken.get(row.webhook_id) ?? 0;
        if (count >= perWebhook) return false;
        taken.set(row.webhook_id, count + 1);
        return true;
      });
      for (const batch of chunks(claimed)) {
        await tx.execute(
          sql`UPDATE webhook_events SET next_attempt_at = ${claimedUntil.toISOString()}
              WHERE seq IN (${list(batch.map((row) => row.seq))}) AND status = 'pending'`,
        );
      }
      return claimed;
    });
  }

  /**
   * Records attempts' outcomes in one transaction (the dispatcher gathers those that finish
   * together). A delivery whose retries are used up is `failed`, and its webhook is disabled when
   * no delivery to it has succeeded since that event was created (README, "Webhooks": the disable
   * rule). Answers the webhooks disabled now.
   */
  async record(outcomes: readonly RecordedAttempt[]): Promise<string[]> {
    // Outcomes alike (kind, status, error, pause) are one statement: most batches are all 2xx.
    const groups = new Map<string, RecordedAttempt[]>();
    for (const outcome of outcomes) {
      const key = JSON.stringify([outcome.kind, outcome.status, outcome.error, outcome.retryInSeconds ?? null]);
      groups.set(key, [...(groups.get(key) ?? []), outcome]);
    }
    return this.db.transaction(async (tx) => {
      const now = Date.now();
      const at = new Date(now).toISOString();
      for (const group of groups.values()) {
        const { kind, status, error, retryInSeconds } = group[0]!;
        for (const batch of chunks(group)) {
          const seqs = list(batch.map((outcome) => outcome.seq));
          if (kind === 'retry') {
            const next = new Date(now + (retryInSeconds ?? 0) * 1000).toISOString();
            await tx.execute(
              sql`UPDATE webhook_events SET attempts = attempts + 1, last_attempt_at = ${at}, next_attempt_at = ${next},
                    response_status = ${status}, error = ${error} WHERE seq IN (${seqs}) AND status = 'pending'`,
            );
          } else {
            await tx.execute(
              sql`UPDATE webhook_events SET status = ${kind}, attempts = attempts + 1, last_attempt_at = ${at},
                    next_attempt_at = NULL, response_status = ${status}, error = ${error} WHERE seq IN (${seqs})`,
            );
          }
        }
      }
      const succeeded = [...new Set(outcomes.filter((o) => o.kind === 'delivered').map((o) => o.webhookId))];
      if (succeeded.length > 0) {
        await tx.execute(sql`UPDATE webhooks SET last_success_at = ${at} WHERE id IN (${list(succeeded)})`);
      }
      const disabled: string[] = [];
      for (const outcome of outcomes) {
        if (outcome.kind !== 'failed') continue;
        const changed = await tx.execute(
          sql`UPDATE webhooks SET status = 'disabled', updated_at = ${at}
              WHERE id = ${outcome.webhookId} AND status = 'active'
                AND (last_success_at IS NULL OR last_success_at < ${outcome.createdAt})`,
        );
        if (changed > 0) disabled.push(outcome.webhookId);
      }
      return disabled;
    });
  }

  /** Forgets finished deliveries recorded before `before` (the delivery log keeps the rest). */
  async prune(before: string): Promise<number> {
    return this.db.execute(
      sql`DELETE FROM webhook_events WHERE status IN ('delivered', 'failed') AND created_at < ${before}`,
    );
  }

  /** Pending deliveries and the creation time of the oldest, for the metrics. */
  async pending(): Promise<{ count: number; oldest: string | null }> {
    const [row] = await this.db.query<{ n: number | string; oldest: Date | string | null }>(
      sql`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_events WHERE status = 'pending'`,
    );
    const oldest = row?.oldest ?? null;
    return { count: Number(row?.n ?? 0), oldest: oldest === null ? null : new Date(oldest).toISOString() };
  }
}
