import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { dataSourceOptions, openDataSource } from './data-source';
import { Db } from './db.service';
import { ReferenceDataService } from './reference-data.service';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config.database), retryAttempts: 0 }),
      dataSourceFactory: (options) => {
        if (options === undefined) throw new Error('the database options are missing');
        return openDataSource(options);
      },
    }),
  ],
  providers: [Db, ReferenceDataService],
  exports: [Db, ReferenceDataService],
})
export class DatabaseModule {}
