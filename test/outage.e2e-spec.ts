import { Client } from 'pg';
import { pauseCluster, PgCluster, resumeCluster, startCluster, stopCluster } from './support/pg-cluster';
import { startTestApp, TestApp } from './support/test-app';

const UNAVAILABLE = {
  statusCode: 503,
  error: 'Service Unavailable',
  code: 'DATABASE_UNAVAILABLE',
  message: 'The database cannot be reached right now; retry after the number of seconds in Retry-After.',
};

/**
 * A PostgreSQL of this suite's own, so that it can be stopped and started under a running
 * server without disturbing the other suites.
 */
describe('PostgreSQL going away under a running server', () => {
  let cluster: PgCluster;
  let t: TestApp;

  beforeAll(async () => {
    cluster = await startCluster();
    t = await startTestApp({ databaseUrl: cluster.url });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (cluster) stopCluster(cluster);
  });

  it('answers 503 with Retry-After when the connection of a request is lost mid-request', async () => {
    const locker = new Client({ connectionString: cluster.url });
    const admin = new Client({ connectionString: cluster.url });
    await Promise.all([locker.connect(), admin.connect()]);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tags IN ACCESS EXCLUSIVE MODE');
      // The request's first statement, the tag's lookup, waits on the lock; terminating its session
      // is what a PostgreSQL restart or a failover does.
      const answer = t
        .http()
        .get('/v2/tags/lost_watch')
        .set('X-API-Key', t.keys.alice)
        .then((response) => response);
      let terminated = 0;
      for (let attempt = 0; attempt < 1500 && terminated === 0; attempt += 1) {
        terminated = await terminateLockWaiters(admin);
        if (terminated === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(terminated).toBe(1);
      const response = await answer;
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual(UNAVAILABLE);
    } finally {
      await locker.query('COMMIT').catch(() => undefined);
      await Promise.all([locker.end(), admin.end()]);
    }
    await t.http().get('/v2/tags').set('X-API-Key', t.keys.alice).expect(200);
  });

  it('answers 503 with Retry-After while PostgreSQL is down, and normally once it is back', async () => {
    await t.http().get('/v2/tags').set('X-API-Key', t.keys.alice).expect(200);
    pauseCluster(cluster);
    try {
      for (const send of [
        () => t.http().get('/v2/tags').set('X-API-Key', t.keys.alice),
        () => t.http().get('/v2/chains').set('X-API-Key', t.keys.bob),
        () =>
          t
            .http()
            .post('/v2/tags/outage_watch')
            .set('X-API-Key', t.keys.alice)
            .set('Content-Type', 'application/json')
            .send(['0x52908400098527886E0F7030069857D2E4169EE7']),
      ]) {
        const response = await send();
        expect(response.status).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.body).toEqual(UNAVAILABLE);
      }
      const health = await t.http().get('/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
      expect(health.headers['retry-after']).toBe('5');
    } finally {
      resumeCluster(cluster);
    }
    await t.http().get('/health').expect(200);
    await t.http().get('/v2/tags').set('X-API-Key', t.keys.alice).expect(200);
  });
});

/** Ends the sessions waiting on a lock, as pg_terminate_backend does; answers how many. */
async function terminateLockWaiters(admin: Client): Promise<number> {
  const { rows } = await admin.query<{ ended: boolean }>(
    "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
  );
  return rows.filter((row) => row.ended).length;
}
