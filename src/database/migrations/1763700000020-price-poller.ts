import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * The lease that makes one process at a time poll the price source (src/modules/prices): a single
 * row naming the holder and until when its claim stands. Other processes stand by and take over
 * once the holder releases the lease or lets it lapse.
 */
export class PricePoller1763700000020 implements MigrationInterface {
  name = 'PricePoller1763700000020';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE price_poller (
      id ${t.integer} PRIMARY KEY CHECK (id = 1),
      holder ${t.text},
      lease_until ${t.timestamp},
      polled_at ${t.timestamp}
    )`);
    await runner.query(`INSERT INTO price_poller (id) VALUES (1)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE price_poller');
  }
}
