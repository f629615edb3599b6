import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AccountId } from '../../http/auth/auth';
import { ApiErrors } from '../../http/docs/api-docs';
import { JsonBody } from '../../http/json-body';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { pathParameter } from '../../http/validation/path-params';
import { PageQueryDto } from '../../http/validation/query.dto';
import {
  CreateWebhookDto,
  DeliveriesQueryDto,
  DeliveryDto,
  DeliveryWithPayloadDto,
  RedeliverDto,
  RedeliveredDto,
  UpdateWebhookDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './dto/webhook.dto';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency';
import { WebhooksService } from './webhooks.service';

/**
 * `:id`: a webhook's id as the path spells it. One that names no webhook of the account is
 * WEBHOOK_NOT_FOUND, one Express cannot percent-decode included: no webhook has such an id.
 */
const WebhookIdParam = (): ParameterDecorator =>
  pathParameter({
    name: 'id',
    code: 'WEBHOOK_NOT_FOUND',
    docs: {
      description: "The webhook's id (`wh_…`). Another account's webhook is answered as one that does not exist.",
      example: 'wh_4Jq9xR2mT7vK8pL3nB6cW1',
    },
  });

/** `:delivery_id`: an id of the webhook's delivery log (`evt_…`); any other is DELIVERY_NOT_FOUND. */
const DeliveryIdParam = (): ParameterDecorator =>
  pathParameter({
    name: 'delivery_id',
    code: 'DELIVERY_NOT_FOUND',
    docs: {
      description: "The delivery's id (`evt_…`), its `webhook-id` header and its `id` in the delivery log.",
      example: 'evt_2Nf8kq0sVb7WcX4yZ1mR5t',
    },
  });

class PingAcceptedDto {
  @ApiProperty({
    example: 'evt_2Nf8kq0sVb7WcX4yZ1mR5t',
    description: "The ping event's id: its `webhook-id` and its entry in the delivery log.",
  })
  id!: string;
}

@ApiTags('webhooks')
@Controller('v2/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @JsonBody()
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'Tells the URL when an address carrying one of the tags (of this account) moves value on one of the chains: a signed POST per event (README, "Webhooks"). At most 20 per account. The answer is the only one, with rotate-secret\'s, that shows the `secret`.',
  })
  @ApiBody({ type: CreateWebhookDto })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description:
      'Any string of 1 to 255 visible ASCII characters, a UUID for instance, new for each webhook. Sent again with the same request (a retry after a timeout), the answer is the webhook that the first request created, as it stands now and with its secret, and no second webhook is created; with another request, 400 BAD_REQUEST. Kept as long as the webhook it created.',
    schema: { type: 'string', example: '5f0c6e2a-9a1d-4c1e-8f8e-3b7d2f6a9c41' },
  })
  @ApiCreatedResponse({
    type: WebhookWithSecretDto,
    description: 'The webhook, with its secret.',
    headers: {
      [IDEMPOTENT_REPLAYED_HEADER]: {
        description: `\`true\` when the answer is the webhook an earlier request with the same ${IDEMPOTENCY_KEY_HEADER} created.`,
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiErrors(
    'INVALID_BODY',
    'INVALID_WEBHOOK_URL',
    'INVALID_TAG',
    'TAG_NOT_FOUND',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'WEBHOOK_LIMIT_EXCEEDED',
    'INVALID_QUERY',
    'BAD_REQUEST',
  )
  async create(
    @AccountId() accountId: number,
    @Body() body: unknown,
    @Headers(IDEMPOTENCY_KEY_HEADER.toLowerCase()) key: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookWithSecretDto> {
    const { webhook, replayed } = await this.webhooks.create(accountId, body, key);
    if (replayed) response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return webhook;
  }

  @Get()
  @Paged(WebhookDto, "A page of the account's webhooks, without their secrets.")
  @ApiOperation({ summary: 'List webhooks', description: "The account's webhooks, oldest first." })
  @ApiErrors('INVALID_QUERY')
  async list(
    @AccountId() accountId: number,
    @Query() query: PageQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<WebhookDto[]> {
    return pager.answer(await this.webhooks.list(accountId, query.page, query.per_page));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a webhook', description: 'Never shows its secret.' })
  @ApiOkResponse({ type: WebhookDto, description: 'The webhook.' })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'INVALID_QUERY')
  get(@AccountId() accountId: number, @WebhookIdParam() id: string): Promise<WebhookDto> {
    return this.webhooks.get(accountId, id);
  }

  @Patch(':id')
  @JsonBody()
  @ApiOperation({
    summary: 'Change a webhook',
    description:
      'Changes the fields given. `status: paused` stops deliveries (and the recording of new `transaction.confirmed` events) until `status: active`, which also restarts a webhook chaintags disabled; pending deliveries are then due at once.',
  })
  @ApiBody({ type: UpdateWebhookDto })
  @ApiOkResponse({ type: WebhookDto, description: 'The webhook as changed.' })
  @ApiErrors(
    'INVALID_BODY',
    'INVALID_WEBHOOK_URL',
    'INVALID_TAG',
    'TAG_NOT_FOUND',
    'WEBHOOK_NOT_FOUND',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'INVALID_QUERY',
  )
  update(@AccountId() accountId: number, @WebhookIdParam() id: string, @Body() body: unknown): Promise<WebhookDto> {
    return this.webhooks.update(accountId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a webhook',
    description: 'Its pending deliveries go with it: nothing more is delivered.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'INVALID_QUERY')
  async delete(@AccountId() accountId: number, @WebhookIdParam() id: string): Promise<void> {
    await this.webhooks.delete(accountId, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'Answers a new secret; every attempt from now on, retries of older events included, is signed with it.',
  })
  @ApiOkResponse({ type: WebhookWithSecretDto, description: 'The webhook, with its new secret.' })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'INVALID_QUERY')
  rotateSecret(@AccountId() accountId: number, @WebhookIdParam() id: string): Promise<WebhookWithSecretDto> {
    return this.webhooks.rotateSecret(accountId, id);
  }

  @Post(':id/ping')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a ping',
    description: 'Delivers a `webhook.ping` event now (whatever the status), retried like any other.',
  })
  @ApiAcceptedResponse({ type: PingAcceptedDto, description: 'The ping is recorded and on its way.' })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'INVALID_QUERY')
  ping(@AccountId() accountId: number, @WebhookIdParam() id: string): Promise<PingAcceptedDto> {
    return this.webhooks.ping(accountId, id);
  }

  @Post(':id/redeliver')
  @HttpCode(202)
  @JsonBody()
  @ApiOperation({
    summary: 'Send deliveries again',
    description:
      'After an outage of the receiver longer than the retry schedule: every `failed` delivery recorded since an instant (`since`), or the deliveries named (`deliveries`, failed or delivered), pending again and sent at once for one more attempt each, with their own `webhook-id` and body. A pending delivery is on its way already and stays as it is; a `transaction.confirmed` whose transfer a reorganisation undid is not sent again. A disabled or paused webhook sends them once it is active again.',
  })
  @ApiBody({ type: RedeliverDto })
  @ApiAcceptedResponse({ type: RedeliveredDto, description: 'The chosen deliveries are pending again.' })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_QUERY')
  redeliver(
    @AccountId() accountId: number,
    @WebhookIdParam() id: string,
    @Body() body: unknown,
  ): Promise<RedeliveredDto> {
    return this.webhooks.redeliver(accountId, id, body);
  }

  @Get(':id/deliveries')
  @Paged(DeliveryDto, "A page of the webhook's delivery log, newest first.")
  @ApiOperation({
    summary: 'List deliveries',
    description: "The webhook's events and how their delivery went, newest first; `status` narrows them.",
  })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'INVALID_QUERY')
  async deliveries(
    @AccountId() accountId: number,
    @WebhookIdParam() id: string,
    @Query() query: DeliveriesQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<DeliveryDto[]> {
    return pager.answer(await this.webhooks.deliveries(accountId, id, query.page, query.per_page, query.status));
  }

  @Get(':id/deliveries/:delivery_id')
  @ApiOperation({
    summary: 'Get a delivery',
    description:
      'One entry of the delivery log, with the `payload` every attempt posts: to read an event your side lost, or to check what was sent. The log keeps finished deliveries 30 days.',
  })
  @ApiOkResponse({ type: DeliveryWithPayloadDto, description: 'The delivery and its payload.' })
  @ApiErrors('WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND', 'INVALID_QUERY')
  delivery(
    @AccountId() accountId: number,
    @WebhookIdParam() id: string,
    @DeliveryIdParam() deliveryId: string,
  ): Promise<DeliveryWithPayloadDto> {
    return this.webhooks.delivery(accountId, id, deliveryId);
  }
}
