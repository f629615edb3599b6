import { DynamicModule, Module } from '@nestjs/common';
import { IngestModule } from '../ingest/ingest.module';
import { FollowRepository } from './follow.repository';
import { FOLLOW_ON_START, FollowService } from './follow.service';
import { SyncController } from './sync.controller';
import { SyncService } from './sync.service';
import { UtxoRepository } from './utxo/utxo.repository';
import { TonRepository } from './ton/ton.repository';

/**
 * Live chain data (contract §10, §13): a follower per chain with an RPC URL, writing through the
 * ingest module's sink, and `GET /v2/sync`. `startOnBoot`: whether the followers start with the
 * application (the server passes FOLLOW; the `follow` command starts them itself).
 */
@Module({})
export class FollowModule {
  static forRoot(options: { startOnBoot: boolean; http?: boolean }): DynamicModule {
    return {
      module: FollowModule,
      imports: [IngestModule],
      controllers: options.http === false ? [] : [SyncController],
      providers: [
        FollowRepository,
        UtxoRepository,
        TonRepository,
        SyncService,
        FollowService,
        { provide: FOLLOW_ON_START, useValue: options.startOnBoot },
      ],
      exports: [FollowService, SyncService],
    };
  }
}
