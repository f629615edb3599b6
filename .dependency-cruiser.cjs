// The dependency rule of chaintags (README, "Architecture"), checked by `npm run lint`.
//
//   core  <-  database  <-  modules/*        http/* imports core and config only;
//   core  <-  http      <-  modules/*        modules use each other through services only.
//
// main.ts, app.*.ts and cli/ put the pieces together and may import anything; modules declare their
// commands in commands/ against the one contract file src/cli/command.ts.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle between files makes the layers meaningless and the load order fragile.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      comment: 'core/ holds facts and pure functions: no Nest, no SQL, nothing from the layers above.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: '\\.spec\\.ts$' },
      to: {
        pathNot: ['^src/core/', '(^|/)node_modules/(@scure|@noble|@bitauth|@ton|viem|ox|abitype)/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'config-below-everything-but-core',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/(database|http|modules|cli)/' },
    },
    {
      name: 'database-below-features',
      comment: 'database/ (Db, dialect, migrations, seeding) serves the modules and must not know them.',
      severity: 'error',
      from: { path: '^src/database/' },
      to: { path: '^src/(http|modules|cli)/' },
    },
    {
      name: 'http-is-transport-only',
      comment: 'http/ may not reach into features or SQL; the auth guard asks an ApiKeyVerifier.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(database|modules|cli)/' },
    },
    {
      name: 'workers-know-no-features',
      comment: 'workers/ is the leased-worker core background jobs run on: it knows leases, not SQL or features.',
      severity: 'error',
      from: { path: '^src/workers/' },
      to: { path: '^src/(database|http|modules|cli)/' },
    },
    {
      name: 'modules-meet-through-services',
      comment:
        'A module uses another one through its exported service (or module, dto and commands), never its repository or SQL.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/([^/]+)/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/[^/]+\\.(service|module)\\.ts$', '^src/modules/[^/]+/dto/'],
      },
    },
    {
      name: 'modules-do-not-assemble-the-app',
      comment: 'The one exception is the command contract (src/cli/command.ts), which modules implement.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(cli/|app\\.|main\\.ts)', pathNot: '^src/cli/command\\.ts$' },
    },
    {
      name: 'command-contract-in-commands-only',
      comment: "A module's commands/ folder declares its CLI commands; nothing else in a module knows the CLI.",
      severity: 'error',
      from: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/commands/' },
      to: { path: '^src/cli/command\\.ts$' },
    },
    {
      name: 'command-contract-stands-alone',
      comment: 'Modules import the command contract, so it may import nothing of ours (or it would be a back door).',
      severity: 'error',
      from: { path: '^src/cli/command\\.ts$' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
