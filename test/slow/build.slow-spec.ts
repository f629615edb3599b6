import { readFileSync } from 'node:fs';
import { renderBuiltOpenApi, OPENAPI_PATH } from '../../scripts/openapi';

/**
 * Checks of the production build, run by `npm run test:slow` (and `.ci/run`), not by `npm test`:
 * `nest build` compiles the whole app with tsc, which alone takes minutes on a busy machine.
 */
describe('the production build (npm run build)', () => {
  it('serves the committed openapi.json', async () => {
    expect(await renderBuiltOpenApi()).toBe(readFileSync(OPENAPI_PATH, 'utf8'));
  }, 300_000);
});
