import { ApiError } from '../../core/errors';
import type { Db } from '../../database/db.service';
import { HealthController } from './health.controller';

describe('HealthController', () => {
  it('answers ok when the database answers', async () => {
    const db = { query: () => Promise.resolve([{ ok: 1 }]) } as unknown as Db;
    await expect(new HealthController(db).check()).resolves.toEqual({ status: 'ok' });
  });

  it('answers 503 DATABASE_UNAVAILABLE when it does not', async () => {
    const db = { query: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) } as unknown as Db;
    const failure = await new HealthController(db).check().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503 });
  });
});
