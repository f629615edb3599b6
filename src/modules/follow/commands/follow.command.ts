import { ModuleCommands } from '../../../cli/command';
import { parseConfig } from '../../../config/config';
import { createLogger, logFormat, NestPinoLogger } from '../../../http/logging/logging';
import { PricesModule } from '../../prices/prices.module';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { FollowModule } from '../follow.module';
import { FollowService } from '../follow.service';

/**
 * `follow`: a worker process. Follows every chain that has an RPC URL (whatever FOLLOW says) and
 * takes part in the price poller's lease, without serving HTTP, until SIGTERM or SIGINT; then the
 * turn in flight commits or rolls back and the leases are given up, so another process takes over.
 */
export const followCommands: ModuleCommands = {
  modules: [
    FollowModule.forRoot({ startOnBoot: false, http: false }),
    PricesModule,
    WebhooksModule.forRoot({ dispatch: true, http: false }),
  ],
  register(program, inContext) {
    program
      .command('follow')
      .description(
        'follow every chain that has an RPC URL (RPC_URL_<CHAIN>) without serving HTTP, until SIGTERM or SIGINT. ' +
          'Several processes may run on one PostgreSQL: one writes each chain, the others stand by.',
      )
      .action(() =>
        inContext(async (context) => {
          const config = parseConfig(process.env);
          const format = logFormat(process.stderr.isTTY === true, config.operations.production);
          context.useLogger(new NestPinoLogger(createLogger(config.logLevel, process.stderr, format)));
          const followers = context.get(FollowService);
          if (followers.followedChains().length === 0) {
            process.stderr.write('no chain has an RPC URL: set RPC_URL_<CHAIN> (for example RPC_URL_ETHEREUM)\n');
          }
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
        }),
      );
  },
};
