// Compiles each service to plain JavaScript for its image (infra/Dockerfile's `compile` stage), so no
// TypeScript loader (tsx) runs in production and each image carries only what its service imports.
//
//   node scripts/build-services.mjs [--out DIR] [service...]     (default: var/images, all four)
//
// For each service, DIR/<service>/ is laid out as the image's /app:
//   dist/          one esbuild bundle per entry (main.js, the forked children and worker threads,
//                  wait-for-migrations.js; the gateway's migrate.js and ensure-bucket.js; the
//                  transcription worker's models.js), ESM, with
//                  source maps (run with `node --enable-source-maps`, set in the image's NODE_OPTIONS),
//                  plus dist/locales (the server texts, read from next to the bundle);
//   node_modules/  only the packages that cannot be bundled (native bindings, packages that read their
//                  own files at run time) and their dependencies, copied from the installed workspace
//                  (so at the versions of package-lock.json), native libraries stripped of symbols;
//   prisma/migrations (read by wait-for-migrations and migrate), package.json ({"type":"module"}),
//   and the transcription worker's models/ (the Silero VAD model shipped in the repository).
// The bundles resolve these by their paths relative to dist/, exactly as the sources do relative to
// their own directories (../prisma/migrations, ../models, ./locales).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Packages left out of the bundles. Native bindings (their .node files and per-platform packages are
 * found at run time) and packages that read files of their own at run time are copied into the image;
 * the npm-shipped ffmpeg/ffprobe binaries are only a fallback when no system ffmpeg is on PATH
 * (services/shared/src/server/media.ts), and the images install Debian's, so they are not copied.
 */
const NATIVE = {
  "@node-rs/argon2": "password hashing (napi-rs)",
  "sherpa-onnx-node": "speaker diarization and the Silero VAD (onnxruntime)",
  "@napi-rs/whisper": "whisper.cpp speech recognition (napi-rs)",
};
const OWN_FILES = {
  "@fastify/swagger-ui": "serves the Swagger UI's static files from its package directory",
};
const NOT_COPIED = ["@ffmpeg-installer/ffmpeg", "@ffprobe-installer/ffprobe"];

const SHARED = { "wait-for-migrations": "infra/wait-for-migrations.ts" };
export const SERVICES = {
  gateway: {
    entries: {
      main: "services/gateway/src/main.ts",
      "fidelity-worker": "services/gateway/src/workspace/fidelity-worker.ts",
      migrate: "scripts/migrate.ts",
      "ensure-bucket": "scripts/ensure-bucket.ts",
      ...SHARED,
    },
    external: ["@node-rs/argon2", "@fastify/swagger-ui"],
  },
  "transcription-worker": {
    entries: {
      main: "services/transcription-worker/src/main.ts",
      "classic-child": "services/transcription-worker/src/diarization/classic-child.ts",
      "sherpa-child": "services/transcription-worker/src/diarization/sherpa-child.ts",
      "whisper-child": "services/transcription-worker/src/engines/whisper-child.ts",
      "sherpa-offline-child": "services/transcription-worker/src/engines/sherpa-offline-child.ts",
      models: "scripts/models.ts",
      ...SHARED,
    },
    // Plain JavaScript already, forked by its file name (vad.ts), so copied as it is.
    copy: { "services/transcription-worker/src/vad-child.mjs": "dist/vad-child.mjs" },
    assets: { "services/transcription-worker/models": "models" },
    external: ["sherpa-onnx-node", "@napi-rs/whisper"],
  },
  "text-worker": { entries: { main: "services/text-worker/src/main.ts", ...SHARED }, external: [] },
  billing: { entries: { main: "services/billing/src/main.ts", ...SHARED }, external: [] },
};

/**
 * Strips the symbol tables of the copied native libraries (`strip --strip-unneeded` keeps what the
 * dynamic loader needs): whisper.cpp's and onnxruntime's builds ship unstripped, 10 MB between them.
 * Skipped, with a line, where binutils is missing (the image's compile stage installs it).
 */
function stripNative(dir) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.(node|so(\.\d+)*)$/.test(e.name)) files.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  if (!files.length) return 0;
  const before = files.reduce((n, f) => n + statSync(f).size, 0);
  const r = spawnSync("strip", ["--strip-unneeded", ...files], { stdio: "inherit" });
  if (r.error) {
    console.log(`[build] strip not found (binutils): native libraries left unstripped`);
    return 0;
  }
  if (r.status !== 0) throw new Error(`strip failed on ${files.join(", ")}`);
  return before - files.reduce((n, f) => n + statSync(f).size, 0);
}

/** A package's directory in the installed workspace, seen from `from` (a directory). */
function packageDir(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (dir === path.dirname(dir)) return null;
  }
}

/**
 * Copies `name` and everything it depends on (dependencies, and the optional ones that are installed:
 * the per-platform binaries) from the workspace's node_modules into out/node_modules, keeping the
 * hoisted layout flat. Returns the names copied.
 */
function copyPackage(name, from, out, seen = new Set()) {
  const dir = packageDir(name, from);
  if (!dir) throw new Error(`${name} is not installed (run npm install)`);
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const dest = path.join(out, path.relative(ROOT, dir));
  cpSync(dir, dest, {
    recursive: true,
    dereference: true,
    filter: (src) => !src.includes(`${path.sep}node_modules${path.sep}.cache`),
  });
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  for (const dep of Object.keys(pkg.dependencies ?? {})) copyPackage(dep, dir, out, seen);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
    if (packageDir(dep, dir)) copyPackage(dep, dir, out, seen);
  }
  return seen;
}

async function build(name, outRoot) {
  const spec = SERVICES[name];
  const out = path.join(outRoot, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(path.join(out, "dist"), { recursive: true });

  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(spec.entries).map(([o, i]) => ({ in: i, out: o })),
    outdir: path.join(out, "dist"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    sourcesContent: false,
    // Whitespace and syntax only: identifiers (and so class and function names in logs) stay as written.
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: "linked",
    logLevel: "warning",
    metafile: true,
    external: [...spec.external, ...NOT_COPIED],
    // CommonJS packages bundled into ESM call require() for Node's built-ins and use __dirname.
    banner: {
      js: [
        'import { createRequire as __kkCreateRequire } from "node:module";',
        'import { fileURLToPath as __kkFileURLToPath } from "node:url";',
        "const require = __kkCreateRequire(import.meta.url);",
        "const __filename = __kkFileURLToPath(import.meta.url);",
        'const __dirname = __kkFileURLToPath(new URL(".", import.meta.url));',
      ].join("\n"),
    },
  });

  // Server texts: read from `./locales` next to the module that loads them (the bundle).
  cpSync(path.join(ROOT, "services/shared/src/server/i18n/locales"), path.join(out, "dist/locales"), {
    recursive: true,
  });
  cpSync(path.join(ROOT, "prisma/migrations"), path.join(out, "prisma/migrations"), { recursive: true });
  for (const [from, to] of Object.entries({ ...spec.copy, ...spec.assets })) {
    cpSync(path.join(ROOT, from), path.join(out, to), { recursive: true });
  }
  const copied = new Set();
  for (const ext of spec.external) {
    if (!NATIVE[ext] && !OWN_FILES[ext]) throw new Error(`${ext}: say in NATIVE or OWN_FILES why it is not bundled`);
    copyPackage(ext, ROOT, out, copied);
  }
  const stripped = stripNative(path.join(out, "node_modules"));
  writeFileSync(
    path.join(out, "package.json"),
    `${JSON.stringify({ name: `kikitori-${name}`, private: true, type: "module" }, null, 2)}\n`,
  );
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  console.log(
    `[build] ${name}: ${Object.keys(spec.entries).length} bundles, ${(bytes / 1e6).toFixed(1)} MB; node_modules: ${
      [...copied].map((d) => path.relative(path.join(ROOT, "node_modules"), d)).join(", ") || "none"
    }${stripped ? ` (native libraries stripped: -${(stripped / 1e6).toFixed(1)} MB)` : ""}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { out: { type: "string" } }, allowPositionals: true });
  const outRoot = path.resolve(values.out ?? path.join(ROOT, "var/images"));
  const names = positionals.length ? positionals : Object.keys(SERVICES);
  for (const n of names) {
    if (!SERVICES[n]) throw new Error(`unknown service ${n} (one of ${Object.keys(SERVICES).join(", ")})`);
    await build(n, outRoot);
  }
}
