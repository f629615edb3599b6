import { DataSource } from 'typeorm';
import { parseConfig } from './src/config/config';
import { dataSourceOptions } from './src/database/data-source';

/**
 * The DataSource for TypeORM's own migration commands, configured from DATABASE_URL like the
 * service, e.g. `npx typeorm -d dist/ormconfig.js migration:show` after `npm run build`.
 * The service and the CLI apply pending migrations themselves at start.
 */
export default new DataSource({ ...dataSourceOptions(parseConfig(process.env).database), migrationsRun: false });
