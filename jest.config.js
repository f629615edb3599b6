// `npm test` covers two levels: `unit` (pure and service tests beside the code) and `e2e` (HTTP
// tests in test/, each suite run on SQLite and on the throwaway PostgreSQL that
// test/support/global-setup.ts starts). `npm run test:slow` (CHAINTAGS_TESTS=slow) runs the checks
// of the production build instead, which .ci/run runs after `npm test`.
const swc = ['@swc/jest', { swcrc: true }];
// The address libraries ship as ES modules only; jest loads everything as CommonJS, so they are
// transformed like our own code.
const esmPackages = ['@scure', '@noble', '@bitauth', '@solana', 'viem', 'ox', 'abitype'];
const shared = {
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  // `nest build` writes dist/, with a copy of package.json that jest would otherwise take for a
  // second module named chaintags ("Haste module naming collision").
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

module.exports = {
  // A global option in Jest 30: set inside a project it is ignored. Several e2e suites spawn the CLI
  // as a separate process, which on a busy 2-core machine alone can take seconds.
  testTimeout: 60_000,
  // Three suites at a time, on two cores: most of a suite's time is spent waiting on databases,
  // nodes and the processes it starts. With two, a quarter of the machine's CPU time was idle over
  // `npm test` (278-299 s in three runs); with three, 8% (198-218 s in three runs). Four, tried once
  // the suites' fixed costs had gone down (167 and 169 s with three): 152 and 163 s, for more
  // contention on the few assertions with a time in them; not taken. Every suite has databases,
  // ports and processes of its own.
  maxWorkers: 3,
  // How long jest waits for a worker to exit on its own at the end before it kills it (and prints
  // "A worker process has failed to exit gracefully"). Nothing is left running in the workers by
  // then (the event loop is empty), but a worker that ran its share of the suites holds 1.0-1.5
  // GB, most of it garbage V8 has not collected yet, which this machine kind took 0.6-0.9 s to give
  // back as the process exited; jest's default is 500 ms.
  workerGracefulExitTimeout: 5_000,
  projects:
    process.env.CHAINTAGS_TESTS === 'slow'
      ? [{ ...shared, displayName: 'slow', testMatch: ['<rootDir>/test/slow/**/*.slow-spec.ts'] }]
      : [
          {
            ...shared,
            displayName: 'unit',
            testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts'],
          },
          {
            ...shared,
            displayName: 'e2e',
            testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
            globalSetup: '<rootDir>/test/support/global-setup.ts',
            globalTeardown: '<rootDir>/test/support/global-teardown.ts',
          },
        ],
};
