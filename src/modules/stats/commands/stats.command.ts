import { CliFailure, ModuleCommands } from '../../../cli/command';
import { StatsModule } from '../stats.module';
import { StatsService } from '../stats.service';

/** `stats verify [--repair]`: the kept aggregates against the reference computation. */
export const statsCommands: ModuleCommands = {
  modules: [StatsModule],
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
        inContext(async (context) => {
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
