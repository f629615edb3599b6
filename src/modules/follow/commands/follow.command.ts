import { CliFailure, type ModuleCommands } from '../../../cli/command';
import { parseConfig } from '../../../config/config';
import type { NodeCheck } from '../follow.service';

/**
 * `follow`: a worker process. Follows every chain that has an RPC URL (whatever FOLLOW says) and
 * takes part in the price poller's lease, without serving HTTP, until SIGTERM or SIGINT; then the
 * turn in flight commits or rolls back and the leases are given up, so another process takes over.
 * `follow --check` asks each node once and exits, writing no chain data.
 */
export const followCommands: ModuleCommands = {
  register(program, inContext) {
    const follow = () =>
      inContext(load, async (context, { FollowService, logging, metrics }) => {
        const config = parseConfig(process.env);
        const format = logging.logFormat(process.stderr.isTTY === true, config.operations.production);
        context.useLogger(new logging.NestPinoLogger(logging.createLogger(config.logLevel, process.stderr, format)));
        const followers = context.get(FollowService);
        if (followers.followedChains().length === 0) {
          process.stderr.write('no chain has an RPC URL: set RPC_URL_<CHAIN> (for example RPC_URL_ETHEREUM)\n');
        }
        const served =
          metrics === undefined
            ? undefined
            : await metrics.serveMetrics(context.get(metrics.Metrics).registry, metrics.port);
        if (served !== undefined) process.stderr.write(`serving GET /metrics on port ${served.port}\n`);
        followers.start();
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            process.removeListener('SIGTERM', stop);
            process.removeListener('SIGINT', stop);
            resolve();
          };
          process.once('SIGTERM', stop);
          process.once('SIGINT', stop);
        });
        await served?.close();
      });

    program
      .command('follow')
      .description(
        'follow every chain that has an RPC URL (RPC_URL_<CHAIN>) without serving HTTP, until SIGTERM or SIGINT. ' +
          'Several processes may run on one PostgreSQL: one writes each chain, the others stand by.',
      )
      .option(
        '--check',
        'ask each node once whether it answers and is on its chain, with its head beside the block indexed, and exit ' +
          'without following: one JSON line on stdout, a line per chain on stderr; exit code 1 when any node failed',
      )
      .action((flags: { check?: boolean }) =>
        flags.check === true
          ? inContext(loadCheck, async (context, { FollowService }) =>
              report(await context.get(FollowService).checkNodes()),
            )
          : follow(),
      );
  },
};

/** `follow --check`'s output: each chain on stderr for a person, all of them on stdout as one JSON line. */
function report(checks: readonly NodeCheck[]): void {
  if (checks.length === 0) {
    throw new CliFailure('no chain has an RPC URL: set RPC_URL_<CHAIN> (for example RPC_URL_ETHEREUM)');
  }
  for (const check of checks) {
    const indexed =
      check.indexed === null ? 'nothing indexed yet' : `indexed ${check.indexed} (${check.behind} behind the node)`;
    process.stderr.write(
      check.ok ? `${check.chain}: ok, head ${check.head}, ${indexed}\n` : `${check.chain}: ${check.error}\n`,
    );
  }
  const failed = checks.filter((check) => !check.ok).map((check) => check.chain);
  process.stdout.write(`${JSON.stringify({ ok: failed.length === 0, chains: checks })}\n`);
  if (failed.length > 0) throw new CliFailure(`the node of ${failed.join(', ')} failed the check`);
}

/** What `follow --check` runs: the followers' module alone, nothing started. */
function loadCheck() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { FollowModule } = require('../follow.module') as typeof import('../follow.module');
  const { FollowService } = require('../follow.service') as typeof import('../follow.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { modules: [FollowModule.forRoot({ startOnBoot: false, http: false })], FollowService };
}

/** What the command runs, required when it runs (src/cli/command.ts). */
function load() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { FollowModule } = require('../follow.module') as typeof import('../follow.module');
  const { FollowService } = require('../follow.service') as typeof import('../follow.service');
  const { PricesModule } = require('../../prices/prices.module') as typeof import('../../prices/prices.module');
  const { WebhooksModule } =
    require('../../webhooks/webhooks.module') as typeof import('../../webhooks/webhooks.module');
  const logging = require('../../../http/logging/logging') as typeof import('../../../http/logging/logging');
  const { operations } = parseConfig(process.env);
  const port = operations.metrics ? operations.workerMetricsPort : undefined;
  const metrics =
    port === undefined
      ? undefined
      : {
          port,
          ...(require('../../../http/metrics/metrics.module') as typeof import('../../../http/metrics/metrics.module')),
          ...(require('../../../http/metrics/metrics.service') as typeof import('../../../http/metrics/metrics.service')),
          ...(require('../../../http/metrics/metrics-server') as typeof import('../../../http/metrics/metrics-server')),
        };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    modules: [
      FollowModule.forRoot({ startOnBoot: false, http: false }),
      PricesModule,
      WebhooksModule.forRoot({ dispatch: true, http: false }),
      // With METRICS_PORT: what the followers, the price poller and the webhooks report, and the process's own.
      ...(metrics === undefined ? [] : [metrics.MetricsModule.forRoot({ route: false, processMetrics: true })]),
    ],
    FollowService,
    logging,
    metrics,
  };
}
