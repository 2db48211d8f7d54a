// The dependency graph stays clean: no import cycles between the source files of the
// services and the web app, @kikitori/shared imports nothing above it, no service imports another
// service's code (only shared), and the web app never loads server-only code (./server, ./db,
// ./backends, ./openai). Imports are read from the sources (relative paths and @kikitori/shared/*
// subpaths resolved through services/shared/package.json's exports).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "../..");
const DIRS = [
  "services/shared/src",
  "services/gateway/src",
  "services/transcription-worker/src",
  "services/text-worker/src",
  "services/billing/src",
  "web/src",
];
const exportsMap = JSON.parse(readFileSync(path.join(root, "services/shared/package.json"), "utf8")).exports as Record<
  string,
  string
>;

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== "generated" && name !== "node_modules") sources(p, out);
    } else if (/\.(ts|tsx|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

const graph = new Map<string, string[]>();
for (const file of DIRS.flatMap((d) => sources(path.join(root, d)))) {
  const deps: string[] = [];
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    const spec = m[1] ?? m[2];
    let target: string | null = null;
    if (spec.startsWith(".")) target = path.resolve(path.dirname(file), spec);
    else if (spec === "@kikitori/shared" || spec.startsWith("@kikitori/shared/")) {
      const sub = `.${spec.slice("@kikitori/shared".length)}`;
      const entry = exportsMap[sub];
      if (!entry) throw new Error(`${path.relative(root, file)} imports ${spec}, which shared does not export`);
      target = path.join(root, "services/shared", entry);
    }
    if (target && existsSync(target)) deps.push(target);
  }
  graph.set(file, deps);
}
const rel = (p: string) => path.relative(root, p);
const area = (p: string) => rel(p).split("/").slice(0, 2).join("/");

it("reads the sources of every service and the web app", () => {
  expect(graph.size).toBeGreaterThan(250);
});

it("has no import cycles", () => {
  // Tarjan's strongly connected components: any component of more than one file is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(rel(w));
      } while (w !== v);
      if (component.length > 1) cycles.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  expect(cycles).toEqual([]);
});

it("keeps shared at the ground floor, services apart, and server code out of the web app", () => {
  const problems: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      const f = rel(file);
      const d = rel(dep);
      if (f.startsWith("services/shared/") && !d.startsWith("services/shared/")) problems.push(`${f} → ${d}`);
      else if (!d.startsWith("services/shared/") && area(file) !== area(dep)) problems.push(`${f} → ${d}`);
      if (f.startsWith("web/") && /^services\/shared\/src\/server\//.test(d))
        problems.push(`${f} → ${d} (server code)`);
    }
  }
  expect(problems).toEqual([]);
});

/** The source files (services and web) whose text matches `write`, outside `owner`. */
function writersOutside(owner: string, write: RegExp): string[] {
  return [...graph.keys()].filter((f) => rel(f) !== owner && write.test(readFileSync(f, "utf8"))).map(rel);
}

it("writes transcription_jobs rows from the job lifecycle module only, and text_runs rows from one module", () => {
  const jobWrites =
    /transcriptionJob\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\b|(UPDATE|INSERT INTO|DELETE FROM)\s+"transcription_jobs"/;
  const runWrites =
    /textRun\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\b|(UPDATE|INSERT INTO|DELETE FROM)\s+"text_runs"/;
  expect(writersOutside("services/shared/src/server/job-lifecycle.ts", jobWrites)).toEqual([]);
  expect(writersOutside("services/shared/src/server/text-runs.ts", runWrites)).toEqual([]);
  // The patterns do find writes where they are.
  expect(jobWrites.test(readFileSync(path.join(root, "services/shared/src/server/job-lifecycle.ts"), "utf8"))).toBe(
    true,
  );
  expect(runWrites.test(readFileSync(path.join(root, "services/shared/src/server/text-runs.ts"), "utf8"))).toBe(true);
});

it("keeps database queries out of the gateway's route files (they go through repositories and use cases)", () => {
  const query =
    /\bdb\.(\$(queryRaw|executeRaw)|[a-z][A-Za-z]*\.(find|count|create|update|delete|upsert|aggregate|groupBy))/;
  // Each feature folder's route plugins: routes.ts, or one per resource (jobs/upload-routes.ts, …),
  // route → use case → repository.
  const isRouteFile = (f: string) => /^services\/gateway\/src\/[a-z-]+\/([a-z-]+-)?routes\.ts$/.test(f);
  const routes = [...graph.keys()].filter((f) => isRouteFile(rel(f)));
  expect(routes.length).toBeGreaterThan(5);
  expect(routes.map(rel)).toEqual(
    expect.arrayContaining(
      [
        "account/routes",
        "auth/routes",
        "billing/routes",
        "text/routes",
        "workspace/routes",
        "system/routes",
        "jobs/upload-routes",
        "jobs/read-routes",
        "jobs/manage-routes",
        "jobs/export-routes",
        "jobs/usage-routes",
      ].map((file) => `services/gateway/src/${file}.ts`),
    ),
  );
  // No route plugins or use cases outside the feature folders.
  const outside = [...graph.keys()].map(rel).filter((f) => /^services\/gateway\/src\/(routes|usecases)\//.test(f));
  expect(outside).toEqual([]);
  expect(routes.filter((f) => query.test(readFileSync(f, "utf8"))).map(rel)).toEqual([]);
  expect(query.test("await db.transcriptionJob.findMany({})")).toBe(true);
  // Nor do they import the database client or a repository: they reach the store through use cases.
  const below = (d: string) => /\/repository\.ts$/.test(d) || d === "services/shared/src/server/db.ts";
  const reaching = routes.flatMap((f) =>
    (graph.get(f) ?? []).filter((d) => below(rel(d))).map((d) => `${rel(f)} → ${rel(d)}`),
  );
  expect(reaching).toEqual([]);
  // The graph does see those imports where they belong: the workspace's adapters bind its repository
  // to the database client.
  const adapters = graph.get(path.join(root, "services/gateway/src/workspace/adapters.ts")) ?? [];
  expect(adapters.map(rel).filter(below).sort()).toEqual([
    "services/gateway/src/workspace/repository.ts",
    "services/shared/src/server/db.ts",
  ]);
});

/** Functions (declarations, methods, arrows, function expressions) of a source longer than `max` lines. */
function longFunctions(file: string, max: number): string[] {
  const text = readFileSync(file, "utf8");
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const from = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const to = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (to - from + 1 > max) out.push(`${rel(file)}:${from + 1} (${to - from + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

it("has no function over 120 lines in the services and the web app", () => {
  const files = [...graph.keys()].filter((f) => /\.(ts|tsx)$/.test(f));
  expect(files.flatMap((f) => longFunctions(f, 120))).toEqual([]);
  // The check does see a long function.
  const probe = path.join(root, "services/shared/src/server/job-lifecycle.ts");
  expect(longFunctions(probe, 10).length).toBeGreaterThan(0);
});

it("cites no issue numbers in code, tests, SQL or styles (comments say the reason in their own words)", () => {
  const walk = (dir: string, out: string[] = []): string[] => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) {
        if (!["generated", "node_modules", "dist"].includes(name)) walk(p, out);
      } else if (/\.(ts|tsx|mjs|sql|css)$/.test(name)) out.push(p);
    }
    return out;
  };
  const files = ["services", "web/src", "tests", "scripts", "prisma"].flatMap((d) =>
    existsSync(path.join(root, d)) ? walk(path.join(root, d)) : [],
  );
  const citing = /(?:issue|task|ticket)\s*#\d+|\(#\d+(?:,\s*#?\d+)*(?:\s+items?\s[\d, ]+)?\)/i;
  expect(files.filter((f) => citing.test(readFileSync(f, "utf8"))).map(rel)).toEqual([]);
  // The probes are built, so this file does not hold what it looks for.
  const n = 7;
  expect(citing.test(`// see issue #${n}`)).toBe(true);
  expect(citing.test(`// (#${n} items 1, 4)`)).toBe(true);
});
