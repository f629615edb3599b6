import { DynamicModule, Module } from '@nestjs/common';
import { TagsModule } from '../tags/tags.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { WebhookAnnouncements } from './webhook-announcements.service';
import { DISPATCH_ON_START, WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks (contract §14): the routes, the outbox a follower writes through WebhookAnnouncements,
 * and the dispatcher that delivers it. `dispatch`: whether the dispatcher starts with the
 * application or context (any number of processes may: one holds the lease and delivers).
 * Global, so that the follow module finds WebhookAnnouncements without importing this module
 * (which would start a second dispatcher) and without knowing whether it is there.
 */
@Module({})
export class WebhooksModule {
  static forRoot(options: { dispatch: boolean; http?: boolean }): DynamicModule {
    return {
      module: WebhooksModule,
      global: true,
      imports: [TagsModule, TransactionsModule],
      controllers: options.http === false ? [] : [WebhooksController],
      providers: [
        WebhooksRepository,
        WebhooksService,
        WebhookAnnouncements,
        WebhookDispatcher,
        { provide: DISPATCH_ON_START, useValue: options.dispatch },
      ],
      exports: [WebhookAnnouncements, WebhooksService, WebhookDispatcher],
    };
  }
}
