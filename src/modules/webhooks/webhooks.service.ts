import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, WebhooksConfig } from '../../config/config';
import { ApiError } from '../../core/errors';
import { OffsetPage } from '../../http/paging/paging';
import { TagScopeService } from '../tags/tag-scope.service';
import {
  DeliveryDto,
  DeliveryStatus,
  DeliveryWithPayloadDto,
  toDelivery,
  toDeliveryWithPayload,
  toWebhook,
  WebhookDto,
  WebhookWithSecretDto,
} from './dto/webhook.dto';
import { parseRedeliveryInput } from './dto/redelivery-input';
import { parseWebhookInput, WebhookInput } from './dto/webhook-input';
import { PING, SUBSCRIBABLE_EVENTS } from './webhook-events';
import { EVENT_ID, newEventId, newSecret, newWebhookId, WEBHOOK_ID } from './webhook-ids';
import { destinationProblem } from './webhook-url';
import { idempotencyKey, keyReused, requestFingerprint } from './idempotency';
import { KeyedWebhook, WebhooksRepository, WebhookRow } from './webhooks.repository';

export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

/** An account's webhooks (contract §14): every method answers another account's as if it did not exist. */
@Injectable()
export class WebhooksService {
  private readonly settings: WebhooksConfig;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: WebhooksRepository,
    private readonly tagScopes: TagScopeService,
  ) {
    this.settings = config.webhooks;
  }

  /**
   * Creates a webhook; with an Idempotency-Key (`key`, the header as sent) one that this account
   * created with the same key and the same request is answered instead, as it stands now with its
   * secret (`replayed`), and one created with another request is refused. The key is looked up
   * again under the account's lock, so that requests with one key sent at once create one webhook.
   */
  async create(
    accountId: number,
    body: unknown,
    key?: string,
  ): Promise<{ webhook: WebhookWithSecretDto; replayed: boolean }> {
    const idempotency = idempotencyKey(key);
    const input = parseWebhookInput(body, 'create');
    const fingerprint = requestFingerprint(input);
    if (idempotency !== undefined) {
      const earlier = await this.repository.findByIdempotencyKey(accountId, idempotency);
      if (earlier !== undefined) return this.replay(accountId, earlier, fingerprint);
    }
    await this.checkDestination(input.url!);
    await this.checkTokens(input.tokens);
    const id = newWebhookId();
    const secret = newSecret();
    const at = new Date().toISOString();
    const earlier = await this.repository.transaction(async (tx) => {
      const count = await this.repository.countLocked(tx, accountId);
      if (idempotency !== undefined) {
        const created = await this.repository.findByIdempotencyKey(accountId, idempotency, tx);
        if (created !== undefined) return created;
      }
      if (count >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw new ApiError(
          'WEBHOOK_LIMIT_EXCEEDED',
          `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks.`,
        );
      }
      await this.tagScopes.holdTags(tx, accountId, input.tags!);
      await this.repository.insert(tx, {
        id,
        accountId,
        url: input.url!,
        secret,
        chains: input.chains ?? null,
        events: input.events ?? SUBSCRIBABLE_EVENTS,
        description: input.description ?? null,
        minValueUsd: input.min_value_usd ?? null,
        tokens: input.tokens ?? null,
        tags: input.tags!,
        at,
        idempotency: idempotency === undefined ? null : { key: idempotency, fingerprint },
      });
      return undefined;
    });
    if (earlier !== undefined) return this.replay(accountId, earlier, fingerprint);
    return { webhook: { ...(await this.get(accountId, id)), secret }, replayed: false };
  }

  /** The answer to a creation sent again with its Idempotency-Key: the webhook it created, if the request is the same. */
  private async replay(
    accountId: number,
    earlier: KeyedWebhook,
    fingerprint: string,
  ): Promise<{ webhook: WebhookWithSecretDto; replayed: boolean }> {
    if (earlier.request_fingerprint !== fingerprint) throw keyReused(earlier.id);
    return { webhook: { ...(await this.get(accountId, earlier.id)), secret: earlier.secret }, replayed: true };
  }

  async list(accountId: number, page: number, perPage: number): Promise<OffsetPage<WebhookDto>> {
    const { total, rows } = await this.repository.page(accountId, (page - 1) * perPage, perPage);
    const tags = await this.repository.tagsOf(rows.map((row) => row.id));
    return new OffsetPage(
      rows.map((row) => toWebhook(row, tags.get(row.id) ?? [])),
      page,
      perPage,
      total,
    );
  }

  async get(accountId: number, id: string): Promise<WebhookDto> {
    const row = await this.find(accountId, id);
    const tags = await this.repository.tagsOf([row.id]);
    return toWebhook(row, tags.get(row.id) ?? []);
  }

  async update(accountId: number, id: string, body: unknown): Promise<WebhookDto> {
    await this.find(accountId, id);
    const input: WebhookInput = parseWebhookInput(body, 'update');
    if (input.url !== undefined) await this.checkDestination(input.url);
    await this.checkTokens(input.tokens);
    const { tags } = input;
    const changed = await this.repository.update(
      accountId,
      id,
      input,
      new Date().toISOString(),
      tags === undefined ? undefined : (tx) => this.tagScopes.holdTags(tx, accountId, tags),
    );
    if (!changed) throw notFound(id);
    return this.get(accountId, id);
  }

  async delete(accountId: number, id: string): Promise<void> {
    if (!WEBHOOK_ID.test(id) || !(await this.repository.delete(accountId, id))) throw notFound(id);
  }

  async rotateSecret(accountId: number, id: string): Promise<WebhookWithSecretDto> {
    await this.find(accountId, id);
    const secret = newSecret();
    if (!(await this.repository.setSecret(accountId, id, secret, new Date().toISOString()))) throw notFound(id);
    return { ...(await this.get(accountId, id)), secret };
  }

  /** Records a `webhook.ping` event, delivered at once whatever the webhook's status. */
  async ping(accountId: number, id: string): Promise<{ id: string }> {
    await this.find(accountId, id);
    const at = new Date().toISOString();
    const eventId = newEventId();
    const body = { type: PING, timestamp: at, data: { webhook_id: id } };
    await this.repository.transaction(async (tx) => {
      // Deleted since it was found: no ping for it.
      if (!(await this.repository.holdWebhooks(tx, [id])).has(id)) throw notFound(id);
      await this.repository.insertEvents(tx, [
        {
          id: eventId,
          webhookId: id,
          type: PING,
          chain: null,
          blockNumber: null,
          transferId: null,
          body: JSON.stringify(body),
          at,
        },
      ]);
    });
    return { id: eventId };
  }

  /**
   * Sends deliveries again (`body`: RedeliveryInput): each chosen one is pending again, due now, for
   * one more attempt, under its own id and body; the dispatcher sends it as soon as the webhook is
   * active (a ping whatever the status). Answers how many; a webhook deleted meanwhile is not found.
   */
  async redeliver(accountId: number, id: string, body: unknown): Promise<{ redelivered: number }> {
    const input = parseRedeliveryInput(body);
    await this.find(accountId, id);
    const chosen = 'since' in input ? input : { ids: input.deliveries };
    const at = new Date().toISOString();
    const redelivered = await this.repository.transaction(async (tx) => {
      // Deleted since it was found: its deliveries went with it.
      if (!(await this.repository.holdWebhooks(tx, [id])).has(id)) throw notFound(id);
      return this.repository.redeliver(tx, id, chosen, at);
    });
    return { redelivered };
  }

  async deliveries(
    accountId: number,
    id: string,
    page: number,
    perPage: number,
    status?: DeliveryStatus,
  ): Promise<OffsetPage<DeliveryDto>> {
    await this.find(accountId, id);
    const { total, rows } = await this.repository.pageDeliveries(id, (page - 1) * perPage, perPage, status);
    return new OffsetPage(rows.map(toDelivery), page, perPage, total);
  }

  /** One delivery of the webhook's log with its payload; DELIVERY_NOT_FOUND when the log has none of that id. */
  async delivery(accountId: number, id: string, deliveryId: string): Promise<DeliveryWithPayloadDto> {
    await this.find(accountId, id);
    const row = EVENT_ID.test(deliveryId) ? await this.repository.findDelivery(id, deliveryId) : undefined;
    if (row === undefined) {
      throw new ApiError(
        'DELIVERY_NOT_FOUND',
        `No delivery ${JSON.stringify(deliveryId.slice(0, 100))} of webhook ${JSON.stringify(id)}.`,
      );
    }
    return toDeliveryWithPayload(row);
  }

  private async find(accountId: number, id: string): Promise<WebhookRow> {
    const row = WEBHOOK_ID.test(id) ? await this.repository.find(accountId, id) : undefined;
    if (row === undefined) throw notFound(id);
    return row;
  }

  /** Token ids no token has are refused: a typo would otherwise silence the webhook for good. */
  private async checkTokens(tokens: readonly string[] | null | undefined): Promise<void> {
    if (tokens === undefined || tokens === null) return;
    const unknown = await this.repository.unknownTokens(tokens);
    if (unknown.length === 0) return;
    const named = unknown.slice(0, 5).map((token) => `"${token}"`);
    if (unknown.length > named.length) named.push(`${unknown.length - named.length} more`);
    const message = `unknown token ${named.join(', ')} (GET /v2/tokens lists them)`;
    throw new ApiError('INVALID_BODY', message, [{ field: 'tokens', message }]);
  }

  private async checkDestination(url: string): Promise<void> {
    if (this.settings.allowPrivateUrls) return;
    const problem = await destinationProblem(new URL(url));
    if (problem !== undefined) throw new ApiError('INVALID_WEBHOOK_URL', problem, [{ field: 'url', message: problem }]);
  }
}

function notFound(id: string): ApiError {
  return new ApiError('WEBHOOK_NOT_FOUND', `No webhook "${id.slice(0, 100)}" in this account.`);
}
