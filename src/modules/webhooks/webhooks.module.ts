import { DynamicModule, Module } from '@nestjs/common';
import { TagsModule } from '../tags/tags.module';
import { TAG_RENAMES, type TagRenames } from '../tags/tags.service';
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
 * (which would start a second dispatcher) and without knowing whether it is there; the tags
 * module finds TAG_RENAMES, which keeps the webhooks' tag names with a renamed tag, the same way.
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
        {
          provide: TAG_RENAMES,
          useFactory: (repository: WebhooksRepository): TagRenames => ({
            renamed: (tx, accountId, from, to) => repository.tagRenamed(tx, accountId, from, to),
          }),
          inject: [WebhooksRepository],
        },
      ],
      exports: [WebhookAnnouncements, WebhooksService, WebhookDispatcher, TAG_RENAMES],
    };
  }
}
