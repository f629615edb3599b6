import { Injectable } from '@nestjs/common';
import type { TransactionInput } from '../../core/records/record-input';
import { totalUsd, worthAtLeast } from '../../core/money/valuation';
import { binaryOrder } from '../../core/text/binary-order';
import type { Sql } from '../../database/db.service';
import type { TransactionDto } from '../transactions/dto/transaction.dto';
import { TransactionsService } from '../transactions/transactions.service';
import { CONFIRMED, REMOVED, type WebhookEventName } from './webhook-events';
import { newEventId } from './webhook-ids';
import { type NewEvent, WebhooksRepository } from './webhooks.repository';

/** The body of a transaction event, as a receiver gets it (contract §14, "Delivery"). */
export interface TransactionEventBody {
  type: WebhookEventName;
  timestamp: string;
  data: {
    transaction: TransactionDto;
    tags: string[];
    /** The transfer's token (an extension): what a receiver needs to read `value` in tokens. */
    token: { id: string; symbol: string; decimals: number } | null;
    /** Its worth in USD at the token's newest price when recorded, to the cent; or null. */
    value_usd: number | null;
  };
}

/**
 * Writes the events a follower's commit causes into the outbox, inside that commit's transaction
 * (contract §14, "At least once, nothing lost"): `confirmed` for the transfers of a live range,
 * `removed` for announced transfers a reorganisation undoes. Which webhooks hear of a transfer is
 * decided here, from the tags as they stand in the same transaction.
 *
 * The cost when nothing listens is one indexed probe per commit. Otherwise the transfers'
 * addresses are looked up in the listening webhooks' tags (address_tags by address, 500 a
 * statement), and only the transfers that match are read back, to carry them exactly as
 * `GET /v2/transactions` shows them, with their tokens and newest prices (one statement for all).
 */
@Injectable()
export class WebhookAnnouncements {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly transactions: TransactionsService,
  ) {}

  /** `transaction.confirmed` for every listening webhook of each transfer, written in `tx`. */
  async confirmed(tx: Sql, chain: string, transfers: readonly TransactionInput[]): Promise<void> {
    if (transfers.length === 0 || !(await this.repository.anyListening(tx))) return;
    const addresses = new Set<string>();
    for (const transfer of transfers) {
      addresses.add(transfer.from_address);
      addresses.add(transfer.to_address);
    }
    addresses.delete('0');
    if (addresses.size === 0) return;
    const listeners = await this.repository.listeners(tx, [...addresses]);
    if (listeners.length === 0) return;

    // webhook → address → the webhook's tags the address carries; webhooks listening on this chain for this event only.
    const tagsByWebhook = new Map<string, Map<string, Set<string>>>();
    // webhook → the least a transfer must be worth in USD, and the tokens it hears of, where set.
    const minimums = new Map<string, string>();
    const tokenSets = new Map<string, Set<string>>();
    for (const listener of listeners) {
      const chains = listener.chains === null ? null : (JSON.parse(listener.chains) as string[]);
      if (chains !== null && !chains.includes(chain)) continue;
      if (!(JSON.parse(listener.events) as string[]).includes(CONFIRMED)) continue;
      if (listener.min_value_usd !== null) minimums.set(listener.webhook_id, String(listener.min_value_usd));
      if (listener.tokens !== null)
        tokenSets.set(listener.webhook_id, new Set(JSON.parse(listener.tokens) as string[]));
      let byAddress = tagsByWebhook.get(listener.webhook_id);
      if (byAddress === undefined) tagsByWebhook.set(listener.webhook_id, (byAddress = new Map<string, Set<string>>()));
      let tags = byAddress.get(listener.address);
      if (tags === undefined) byAddress.set(listener.address, (tags = new Set<string>()));
      tags.add(listener.tag);
    }
    // Webhooks deleted since they were read hear nothing (and one being deleted is waited for).
    const held = await this.repository.holdWebhooks(tx, [...tagsByWebhook.keys()]);
    for (const id of tagsByWebhook.keys()) if (!held.has(id)) tagsByWebhook.delete(id);
    if (tagsByWebhook.size === 0) return;

    const matches: { webhookId: string; transferId: string; tags: string[] }[] = [];
    for (const transfer of transfers) {
      for (const [webhookId, byAddress] of tagsByWebhook) {
        const tags = new Set([
          ...(byAddress.get(transfer.from_address) ?? []),
          ...(byAddress.get(transfer.to_address) ?? []),
        ]);
        if (tags.size > 0) matches.push({ webhookId, transferId: transfer.id, tags: [...tags].sort(binaryOrder) });
      }
    }
    if (matches.length === 0) return;
    const shown = new Map(
      (await this.transactions.shownIn(tx, [...new Set(matches.map((match) => match.transferId))])).map((row) => [
        row.id,
        row,
      ]),
    );
    // The matched transfers' tokens, read once: what each event names, what minimums compare with.
    const tokens = await this.repository.tokensAt(
      tx,
      chain,
      [...shown.values()].map((transaction) => transaction.token_address),
    );
    const at = new Date().toISOString();
    const events: NewEvent[] = [];
    for (const match of matches) {
      const transaction = shown.get(match.transferId);
      if (transaction === undefined) continue;
      const token = tokens.get(transaction.token_address);
      const only = tokenSets.get(match.webhookId);
      if (only !== undefined && (token === undefined || !only.has(token.id))) continue;
      const minimum = minimums.get(match.webhookId);
      if (minimum !== undefined && !worthAtLeast(transaction.value, token?.decimals ?? 0, token?.usd, minimum)) {
        continue;
      }
      const body: TransactionEventBody = {
        type: CONFIRMED,
        timestamp: at,
        data: {
          transaction,
          tags: match.tags,
          token: token === undefined ? null : { id: token.id, symbol: token.symbol, decimals: token.decimals },
          value_usd:
            token?.usd === undefined
              ? null
              : totalUsd([{ balance: transaction.value, decimals: token.decimals, usd: token.usd }]),
        },
      };
      events.push({
        id: newEventId(),
        webhookId: match.webhookId,
        type: CONFIRMED,
        chain,
        blockNumber: transaction.block_number,
        transferId: transaction.id,
        body: JSON.stringify(body),
        at,
      });
    }
    await this.repository.insertEvents(tx, events);
  }

  /** `transaction.removed` for every announced transfer of `chain` above `ancestor`, written in `tx`. */
  async removed(tx: Sql, chain: string, ancestor: bigint): Promise<void> {
    const undone = await this.repository.undoAnnouncedAbove(tx, chain, ancestor);
    const at = new Date().toISOString();
    const events: NewEvent[] = [];
    for (const announced of undone) {
      if (!(JSON.parse(announced.events) as string[]).includes(REMOVED)) continue;
      const { data } = JSON.parse(announced.body) as TransactionEventBody;
      const body: TransactionEventBody = { type: REMOVED, timestamp: at, data };
      events.push({
        id: newEventId(),
        webhookId: announced.webhook_id,
        type: REMOVED,
        chain,
        blockNumber: data.transaction.block_number,
        transferId: announced.transfer_id,
        body: JSON.stringify(body),
        at,
      });
    }
    await this.repository.insertEvents(tx, events);
  }
}
