import { DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from '../modules/accounts/accounts.module';
import { AppConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IngestModule } from '../modules/ingest/ingest.module';

/** The modules the command line needs: the same services the HTTP API uses, without the HTTP layer. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, AccountsModule, IngestModule],
    };
  }
}
