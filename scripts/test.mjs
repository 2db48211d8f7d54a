#!/usr/bin/env node
// `npm test [unit|integration|e2e] [jest args…]`: runs jest in ESM mode over the chosen tiers.
// Integration and e2e tiers need PostgreSQL and Redis; scripts/lib/services.mjs starts local ones
// when they are installed but not running. The e2e tier builds the web app first when it is stale.
import { spawnSync } from "node:child_process";
import { ensureWebBuild } from "./lib/build.mjs";
import { ensureServices } from "./lib/services.mjs";

const tiers = ["unit", "integration", "e2e"];
const args = process.argv.slice(2);
const selected = args.filter((a) => tiers.includes(a));
const rest = args.filter((a) => !tiers.includes(a));
const run = selected.length ? selected : tiers;

if (run.some((t) => t !== "unit")) {
  await ensureServices({ log: (m) => console.log(`[test] ${m}`) });
}
if (run.includes("e2e")) ensureWebBuild({ log: (m) => console.log(`[test] ${m}`) });

const res = spawnSync(
  process.execPath,
  [
    "--experimental-vm-modules",
    "--no-warnings=ExperimentalWarning",
    "node_modules/jest/bin/jest.js",
    "--selectProjects",
    ...run,
    ...rest,
  ],
  { stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
);
process.exit(res.status ?? 1);
