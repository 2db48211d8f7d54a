// Builds the web app when web/dist is missing or older than any source file.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

export function ensureWebBuild({ log = console.log, force = false } = {}) {
  const distIndex = "web/dist/index.html";
  const sources = ["web/src", "web/index.html", "web/vite.config.ts", "services/shared/src"];
  const srcTime = Math.max(
    ...sources.filter(existsSync).map((p) => (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)),
  );
  if (!force && existsSync(distIndex) && statSync(distIndex).mtimeMs >= srcTime) return false;
  log("building the web app");
  const r = spawnSync("npm", ["run", "build", "-w", "web"], { stdio: "inherit" });
  if (r.status !== 0) throw new Error("web build failed");
  return true;
}
