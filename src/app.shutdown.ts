import { Logger } from '@nestjs/common';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Runs `stop` on the first SIGTERM or SIGINT and lets the process end by itself once it has
 * (exit code 0, or 1 when stopping failed); nothing calls process.exit(), so output still on its way
 * through a pipe arrives. A second signal while stopping ends the process at once, the way the
 * signal would without a handler: an operator pressing Ctrl-C twice means it.
 */
export function stopOnSignals(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  const logger = new Logger('Shutdown');
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn(`${signal} again: stopping at once`);
      for (const name of SIGNALS) process.removeListener(name, onSignal);
      process.kill(process.pid, signal);
      return;
    }
    stopping = true;
    logger.log(`${signal}: stopping`);
    stop(signal).then(
      () => logger.log('stopped'),
      (error: unknown) => {
        logger.error({ err: error }, 'stopping failed');
        process.exitCode = 1;
      },
    );
  };
  for (const name of SIGNALS) process.on(name, onSignal);
}
