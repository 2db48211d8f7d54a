/**
 * Three tiers, one runner (jest, ESM, @swc/jest):
 * - unit:        *.unit.test.ts  pure logic, no I/O
 * - integration: *.int.test.ts   real Postgres, Redis, S3 server (s3rver) and SMTP catcher
 * - e2e:         *.e2e.test.ts   the whole product in Debian Chromium via playwright-core
 */
const swc = [
  "@swc/jest",
  {
    jsc: {
      parser: { syntax: "typescript", tsx: true },
      target: "es2022",
      transform: { react: { runtime: "automatic" } },
    },
    module: { type: "es6" },
  },
];

const common = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts", ".tsx"],
  transform: { "^.+\\.(t|j)sx?$": swc },
  transformIgnorePatterns: ["/node_modules/"],
  modulePathIgnorePatterns: ["<rootDir>/var/", "<rootDir>/web/dist/"],
  testPathIgnorePatterns: ["/node_modules/", "/var/"],
};

export default {
  // Real servers start in the hooks (a gateway, a database per test file): on a loaded machine that
  // takes longer than jest's 5 s default. A guard against hangs, not a time assertion. It must be set
  // here: jest-circus reads only the global config's testTimeout; set in a project it was ignored, and
  // hooks timed out at 5 s under CI load (ws.int, workspace.int).
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: "unit", testMatch: ["<rootDir>/**/*.unit.test.ts?(x)"] },
    {
      ...common,
      displayName: "integration",
      testMatch: ["<rootDir>/**/*.int.test.ts"],
      globalSetup: "<rootDir>/tests/support/global-setup.ts",
      globalTeardown: "<rootDir>/tests/support/global-teardown.ts",
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/tests/e2e/**/*.e2e.test.ts"],
      globalSetup: "<rootDir>/tests/support/global-setup.ts",
      globalTeardown: "<rootDir>/tests/support/global-teardown.ts",
    },
  ],
};
