import { CliFailure, type ModuleCommands } from '../../../cli/command';

/** `stats verify [--repair]`: the kept aggregates against the reference computation. */
export const statsCommands: ModuleCommands = {
  register(program, inContext) {
    const stats = program.command('stats').description('check the kept aggregates that stats are read from');
    stats
      .command('verify')
      .description(
        'recompute every kept aggregate from the data and compare; one JSON line on stdout, each difference on ' +
          'stderr. Exit code 1 when any differed (also when --repair rewrote them), 0 when all were exact.',
      )
      .option('--repair', 'rewrite every aggregate from the data when any differs')
      .action((flags: { repair?: boolean }) =>
        inContext(load, async (context, { StatsService }) => {
          const report = await context.get(StatsService).verify(flags.repair === true);
          for (const drift of report.drift) {
            process.stderr.write(`drift: ${drift.table}: ${drift.rows} differing rows\n`);
            for (const example of drift.examples) process.stderr.write(`  ${JSON.stringify(example)}\n`);
          }
          const summary = {
            exact: report.drift.length === 0,
            drift: Object.fromEntries(report.drift.map((drift) => [drift.table, drift.rows])),
            repaired: report.repaired,
          };
          process.stdout.write(`${JSON.stringify(summary)}\n`);
          if (report.drift.length > 0) {
            throw new CliFailure(
              report.repaired
                ? 'the kept aggregates differed from the data; they were rewritten and are exact now'
                : 'the kept aggregates differ from the data; "stats verify --repair" rewrites them',
            );
          }
        }),
      );
  },
};

/** What the command runs, required when it runs (src/cli/command.ts). */
function load() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { StatsModule } = require('../stats.module') as typeof import('../stats.module');
  const { StatsService } = require('../stats.service') as typeof import('../stats.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { modules: [StatsModule], StatsService };
}
