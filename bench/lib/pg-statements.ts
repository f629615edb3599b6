/**
 * Where PostgreSQL's time goes, per statement: `pg_stat_statements` in the bench's throwaway
 * cluster (`--pg-statements` of bench/follow.ts). The extension is loaded at the server's start
 * (`shared_preload_libraries`), created in the bench's database, reset before a phase and read
 * after it; phases of one kind (the API's following windows, say) add up.
 */
import { Client } from 'pg';
import type { PgCluster } from '../../test/support/pg-cluster';
import { applySettings } from './pg-settings';

/** One statement's figures over a phase: execution time only (planning is not tracked by default). */
export interface StatementFigure {
  query: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  rows: number;
}

/** Loads the extension: the cluster restarts with it. */
export async function loadStatementStats(cluster: PgCluster): Promise<void> {
  await applySettings(cluster, [['shared_preload_libraries', 'pg_stat_statements']]);
}

/** Statement figures of one database, phase by phase; `reset` starts a phase, `add` ends it into a sum. */
export class StatementStats {
  private readonly sums = new Map<string, Map<string, StatementFigure>>();

  private constructor(private readonly client: Client) {}

  static async open(databaseUrl: string): Promise<StatementStats> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return new StatementStats(client);
  }

  async reset(): Promise<void> {
    await this.client.query('SELECT pg_stat_statements_reset()');
  }

  /** The statements run since the last reset, in this database, added to the sum named `phase`. */
  async add(phase: string): Promise<void> {
    const { rows } = await this.client.query<{ query: string; calls: string; total: number; rows: string }>(
      `SELECT query, calls, total_exec_time AS total, rows FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT LIKE '%pg_stat_statements%'`,
    );
    const sum = this.sums.get(phase) ?? new Map<string, StatementFigure>();
    this.sums.set(phase, sum);
    for (const row of rows) {
      const figure = sum.get(row.query) ?? { query: row.query, calls: 0, totalMs: 0, meanMs: 0, rows: 0 };
      figure.calls += Number(row.calls);
      figure.totalMs += row.total;
      figure.rows += Number(row.rows);
      figure.meanMs = figure.totalMs / figure.calls;
      sum.set(row.query, figure);
    }
  }

  /** Each phase's statements, the costliest first, and every statement's total. */
  summary(top: number): Record<string, { totalMs: number; calls: number; statements: StatementFigure[] }> {
    const out: Record<string, { totalMs: number; calls: number; statements: StatementFigure[] }> = {};
    for (const [phase, sum] of this.sums) {
      const all = [...sum.values()].sort((a, b) => b.totalMs - a.totalMs);
      out[phase] = {
        totalMs: all.reduce((total, figure) => total + figure.totalMs, 0),
        calls: all.reduce((total, figure) => total + figure.calls, 0),
        statements: all.slice(0, top),
      };
    }
    return out;
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** One line a statement, for the bench's log: calls, total and mean ms, rows, and the statement's start. */
export function formatStatements(figures: readonly StatementFigure[], width = 110): string[] {
  return figures.map((figure) => {
    const text = figure.query.replace(/\s+/g, ' ').slice(0, width);
    return `${String(figure.calls).padStart(7)} calls ${figure.totalMs.toFixed(0).padStart(7)} ms ${figure.meanMs
      .toFixed(2)
      .padStart(7)} ms each ${String(figure.rows).padStart(8)} rows  ${text}`;
  });
}
