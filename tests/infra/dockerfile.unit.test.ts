// Static checks of infra/Dockerfile, .dockerignore and scripts/build-services.mjs: each service image is
// built from the pinned Node 22 base, holds its own compiled bundles and only the packages they cannot
// bundle, runs plain JavaScript (no tsx) as a non-root user with a health check, and the build context
// leaves tests, fixtures, local state and models out. scripts/ci-images.sh builds and runs the images
// where Docker is available (their sizes and the recording through them are checked there).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SERVICES } from "../../scripts/build-services.mjs";
import { nodeFlagsOf } from "../../scripts/lib/node-flags.mjs";
import { lastOf, readStages, targetLines } from "./dockerfile.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (p: string) => readFileSync(path.join(ROOT, p), "utf8");
const FILE = "infra/Dockerfile";
const text = read(FILE);
const stages = readStages(path.join(ROOT, FILE));
const APP = ["gateway", "transcription-worker", "text-worker", "billing"] as const;
const BUILD_STAGES = ["deps", "compile", "web"];

describe("infra/Dockerfile", () => {
  it("builds on Node 22 (or newer) bookworm-slim, pinned by digest", () => {
    const arg = /^ARG NODE_IMAGE=(\S+)$/m.exec(text)?.[1];
    expect(arg).toMatch(/^node:(\d+)(\.\d+)*-bookworm-slim@sha256:[0-9a-f]{64}$/);
    expect(Number(/^node:(\d+)/.exec(arg!)![1])).toBeGreaterThanOrEqual(22);
    // Every image stage starts from that argument, so one --build-arg swaps the base everywhere.
    const froms = [...stages.values()].filter((s) => s.parent === null).map((s) => s.lines[0]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/^FROM \$\{NODE_IMAGE\} AS [\w-]+$/);
  });

  it("installs the workspace from the lockfile in a build stage only (`npm install`, not `npm ci`)", () => {
    expect(text).toMatch(/^COPY package\.json package-lock\.json /m);
    // `npm ci` refuses this lock (it carries only the linux-x64 builds of platform-split packages).
    expect(targetLines(stages, "deps")).toContain("RUN npm install --no-audit --no-fund");
    expect(text).not.toMatch(/^RUN\b.*\bnpm ci\b/m);
    expect(targetLines(stages, "compile")).toContain("RUN node scripts/build-services.mjs --out /out");
  });

  it("copies only what exists and what the build context (.dockerignore) holds", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#") && !l.startsWith("!"));
    const copies = text
      .replace(/\\\n/g, " ")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => /^COPY\s/.test(l) && !l.includes("--from="));
    expect(copies.length).toBeGreaterThan(5);
    for (const l of copies) {
      for (const s of l.split(/\s+/).slice(1, -1)) {
        expect({ copy: s, exists: existsSync(path.join(ROOT, s)) }).toEqual({ copy: s, exists: true });
        expect(ignored).not.toContain(s.replace(/\/$/, ""));
      }
    }
  });

  it.each(APP)("the %s image: its own compiled bundle from the pinned base, as a non-root user, checked", (name) => {
    const lines = targetLines(stages, name);
    // Built on the base image itself, not on the stage that installed the whole workspace.
    expect(lines[0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/);
    expect(lines).toContain(`COPY --from=compile /out/${name} /app`);
    for (const l of lines.filter((x) => x.startsWith("COPY --from="))) {
      const from = /^COPY --from=([\w-]+) (\S+)/.exec(l)!;
      expect(BUILD_STAGES).toContain(from[1]);
      // Nothing else of the build stages: no node_modules of the whole workspace, no web toolchain.
      expect([`/out/${name}`, "/app/web/dist"]).toContain(from[2]);
    }
    expect(lines.filter((l) => /\btsx\b/.test(l))).toEqual([]);
    const cmd = /^CMD\s+(\[.*\])\s*$/.exec(lastOf(lines, "CMD") ?? "");
    expect(JSON.parse(cmd![1])).toEqual(["node", "--enable-source-maps", ...nodeFlagsOf(name), "dist/main.js"]);
    expect(lines).toContain("ENV NODE_ENV=production NODE_OPTIONS=--enable-source-maps");
    const user = lastOf(lines, "USER")?.split(/\s+/)[1];
    expect(user).toBeDefined();
    expect(["root", "0", "0:0", "root:root"]).not.toContain(user);
    expect(lastOf(lines, "HEALTHCHECK")).toBeDefined();
  });

  it("only the gateway carries the built web app, and the web toolchain stays in its build stage", () => {
    expect(targetLines(stages, "gateway")).toContain("COPY --from=web /app/web/dist /app/web/dist");
    for (const name of APP.filter((n) => n !== "gateway")) {
      expect(targetLines(stages, name).some((l) => l.includes("--from=web"))).toBe(false);
    }
    expect(targetLines(stages, "web")).toContain("RUN npm run build -w web");
  });

  it("installs Debian's ffmpeg where audio is handled and pocketsphinx where speech is recognised", () => {
    const apt = (target: string) =>
      targetLines(stages, target)
        .filter((l) => /apt-get install/.test(l))
        .join(" ")
        .split(/\s+/);
    expect(apt("gateway")).toContain("ffmpeg");
    expect(apt("transcription-worker")).toEqual(
      expect.arrayContaining(["ffmpeg", "pocketsphinx", "pocketsphinx-en-us"]),
    );
    expect(apt("text-worker")).toEqual([""]);
    expect(apt("billing")).toEqual([""]);
  });

  it("purges only what no binary links, proves it in the same step, and keeps no apt caches", () => {
    const run = (target: string) => {
      const step = targetLines(stages, target).find((l) => /apt-get install/.test(l)) ?? "";
      return step.replace(/\\\n\s*/g, " ");
    };
    const purged = (target: string) =>
      /dpkg --purge --force-depends ([^&]+)&&/.exec(run(target))?.[1].trim().split(/\s+/);
    // The same list in both images that install ffmpeg, and none of what the services run.
    expect(purged("gateway")).toEqual(purged("transcription-worker"));
    expect(purged("gateway")).toEqual(expect.arrayContaining(["libllvm15", "libgl1-mesa-dri", "libz3-4"]));
    for (const keep of ["ffmpeg", "pocketsphinx", "pocketsphinx-en-us", "bzip2"]) {
      expect(purged("gateway")).not.toContain(keep);
    }
    for (const [target, bins] of [
      ["gateway", ["/usr/bin/ffmpeg", "/usr/bin/ffprobe"]],
      ["transcription-worker", ["/usr/bin/ffmpeg", "/usr/bin/ffprobe", "/usr/bin/pocketsphinx_continuous"]],
    ] as const) {
      const step = run(target);
      // After the purge, in the same RUN (a failure fails the build): every library resolves, and
      // ffmpeg still encodes and ffprobe still decodes.
      const after = step.slice(step.indexOf("dpkg --purge"));
      expect(after).toContain(`! ldd ${bins.join(" ")} | grep "not found"`);
      expect(after).toMatch(/ffmpeg .*-f lavfi .*\| ffprobe /);
      expect(step).toContain("rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin");
    }
  });

  it("strips the native libraries in the compile stage (binutils there, not in any image)", () => {
    expect(targetLines(stages, "compile").join(" ")).toMatch(/apt-get install -y --no-install-recommends binutils/);
    for (const name of APP) expect(targetLines(stages, name).join(" ")).not.toContain("binutils");
    expect(read("scripts/build-services.mjs")).toContain('"--strip-unneeded"');
  });
});

describe("scripts/build-services.mjs", () => {
  it("builds exactly the Dockerfile's four service targets", () => {
    expect(Object.keys(SERVICES).sort()).toEqual([...APP].sort());
    for (const name of APP) expect(stages.has(name)).toBe(true);
  });

  it.each(APP)("%s: every entry exists, with main and the pods' migration wait", (name) => {
    const spec = SERVICES[name];
    expect(spec.entries.main).toBe(`services/${name}/src/main.ts`);
    expect(spec.entries["wait-for-migrations"]).toBe("infra/wait-for-migrations.ts");
    for (const file of [...Object.values(spec.entries), ...Object.keys(spec.copy ?? {})]) {
      expect({ file, exists: existsSync(path.join(ROOT, file as string)) }).toEqual({ file, exists: true });
    }
    // The compile stage has every entry's source in its context.
    const compile = targetLines(stages, "compile").join("\n");
    for (const file of Object.values(spec.entries) as string[]) {
      expect(compile.includes(file) || compile.includes(`COPY ${file.split("/")[0]} `)).toBe(true);
    }
  });

  it("bundles the workers' forked children and the gateway's worker thread under the names the code forks", () => {
    // childModule("x-child", …) resolves to ./x-child.js next to the bundle (diarization/child.ts).
    const worker = SERVICES["transcription-worker"];
    for (const child of ["classic-child", "sherpa-child", "whisper-child", "sherpa-offline-child"]) {
      expect(worker.entries[child]).toMatch(new RegExp(`/${child}\\.ts$`));
    }
    expect(worker.copy?.["services/transcription-worker/src/vad-child.mjs"]).toBe("dist/vad-child.mjs");
    expect(SERVICES.gateway.entries["fidelity-worker"]).toBe("services/gateway/src/workspace/fidelity-worker.ts");
    expect(read("services/gateway/src/workspace/fidelity.ts")).toContain('"./fidelity-worker.js"');
  });

  it("leaves out of the bundles only native bindings and packages that read their own files", () => {
    expect(SERVICES.gateway.external.sort()).toEqual(["@fastify/swagger-ui", "@node-rs/argon2"]);
    expect(SERVICES["transcription-worker"].external.sort()).toEqual(["@napi-rs/whisper", "sherpa-onnx-node"]);
    expect(SERVICES["text-worker"].external).toEqual([]);
    expect(SERVICES.billing.external).toEqual([]);
  });
});

describe(".dockerignore", () => {
  const rules = read(".dockerignore")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));

  it("keeps tests, fixtures, local state, models and installed or built output out of the context", () => {
    expect(rules).toEqual(
      expect.arrayContaining([
        ".git",
        "**/node_modules",
        "**/dist",
        "var",
        "tests",
        "**/test",
        "**/fixtures",
        "models",
        "**/*.onnx",
        "**/*.bin",
      ]),
    );
  });

  it("keeps the Silero VAD model the transcription worker ships with", () => {
    expect(rules).toContain("!services/transcription-worker/models/*.onnx");
    expect(existsSync(path.join(ROOT, "services/transcription-worker/models/silero_vad.onnx"))).toBe(true);
  });
});
