import { CliFailure, type ModuleCommands } from '../../../cli/command';
import type { AppConfig } from '../../../config/config';
import type { SourceCheck } from '../source-check';

/** `prices check`: whether the price source answers with the configured URL, plan and key. */
export const pricesCommands: ModuleCommands = {
  register(program, inContext) {
    const prices = program.command('prices').description('check the price source the server polls');
    prices
      .command('check')
      .description(
        'ask the price source once for the price of bitcoin, with PRICE_SOURCE_URL, PRICE_API_PLAN and PRICE_API_KEY, ' +
          'and store nothing: one JSON line on stdout, a line on stderr; exit code 1 when it fails',
      )
      .action(() =>
        inContext(load, async (context, { APP_CONFIG, PriceSourceClient, checkPriceSource }) => {
          const config = context.get<AppConfig>(APP_CONFIG);
          report(await checkPriceSource(new PriceSourceClient(config), config.prices, new AbortController().signal));
        }),
      );
  },
};

function report(check: SourceCheck): void {
  const key = check.key ? `a ${check.plan} key` : 'no key';
  const polling = check.polling ? '' : ' (PRICE_REFRESH_SECONDS=0: the server does not poll it)';
  process.stderr.write(
    check.ok
      ? `price source ${check.source} (${key}): ok, ${check.token} ${check.usd} USD at ${check.at}${polling}\n`
      : `price source ${check.source} (${key}): ${check.error}${polling}\n`,
  );
  process.stdout.write(`${JSON.stringify(check)}\n`);
  if (!check.ok) throw new CliFailure('the price source failed the check');
}

/** What the command runs, required when it runs (src/cli/command.ts): no module, the configuration only. */
function load() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { APP_CONFIG } = require('../../../config/config') as typeof import('../../../config/config');
  const { PriceSourceClient } = require('../price-source.client') as typeof import('../price-source.client');
  const { checkPriceSource } = require('../source-check') as typeof import('../source-check');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { modules: [], APP_CONFIG, PriceSourceClient, checkPriceSource };
}
