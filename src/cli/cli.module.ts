import { DynamicModule, Module, Type } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';

/**
 * The Nest modules one command runs on: configuration, the database (which applies pending
 * migrations and reference data) and the modules its command file declares. No HTTP layer.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig, modules: readonly (Type | DynamicModule)[]): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), DatabaseModule, ...modules] };
  }
}
