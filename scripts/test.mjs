#!/usr/bin/env node
// `npm test [unit|integration|e2e] [jest args…]`: runs jest in ESM mode over the chosen tiers.
// Integration and e2e tiers need PostgreSQL and Redis: scripts/lib/services.mjs provisions them as
// for `npm start` (what answers at DATABASE_URL/REDIS_URL, else PostgreSQL from npm in var/postgres
// and Redis from Debian's package) and they are stopped again after the run. The Debian packages the
// tiers use (pocketsphinx and its test recordings, espeak-ng, Chromium) are installed where allowed
// (root or passwordless sudo, not with NO_INSTALL=1). The e2e tier builds the web app when stale.
import { spawnSync } from "node:child_process";
import { aptInstall, missingPackages } from "./lib/apt.mjs";
import { ensureWebBuild } from "./lib/build.mjs";
import { DEFAULT_REDIS_URL, ensureServices } from "./lib/services.mjs";

const tiers = ["unit", "integration", "e2e"];
const args = process.argv.slice(2);
const selected = args.filter((a) => tiers.includes(a));
const rest = args.filter((a) => !tiers.includes(a));
const run = selected.length ? selected : tiers;
const log = (m) => console.log(`[test] ${m}`);

// The tests' own default database is `postgres` (each test file makes its own database from it).
process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
process.env.REDIS_URL ??= DEFAULT_REDIS_URL;

const packages = new Set();
if (run.some((t) => t !== "unit")) {
  for (const p of ["pocketsphinx", "pocketsphinx-en-us", "pocketsphinx-testdata", "espeak-ng"]) packages.add(p);
}
if (run.includes("e2e") && !process.env.CHROMIUM_PATH) packages.add("chromium");
if (packages.size) {
  if (!aptInstall([...packages], { log, why: "the test tiers" }))
    log(`tests that need ${missingPackages([...packages]).join(", ")} will fail`);
}

let services = { stop: async () => {} };
if (run.some((t) => t !== "unit")) {
  try {
    services = await ensureServices({ log });
  } catch (err) {
    console.error(`[test] ${err.message}`);
    process.exit(1);
  }
}
// Ctrl-C reaches jest too (same process group); wait for it, then stop the servers started here.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
let status = 1;
try {
  if (run.includes("e2e")) ensureWebBuild({ log });
  const res = spawnSync(
    process.execPath,
    [
      "--experimental-vm-modules",
      "--no-warnings=ExperimentalWarning",
      "node_modules/jest/bin/jest.js",
      // Paths given without `--` (as `npm test -- some.test.ts` passes them) go before
      // --selectProjects, which would otherwise take them for project names.
      ...(rest.includes("--") ? [] : rest),
      "--selectProjects",
      ...run,
      ...(rest.includes("--") ? rest : []),
    ],
    { stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
  );
  status = res.status ?? 1;
} finally {
  await services.stop();
}
process.exit(status);
