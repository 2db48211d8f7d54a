// Static checks of the deployment files: docker-compose.yml, infra/*.Dockerfile, k8s/**/*.yaml and
// .env.example. Nothing is started; the files are parsed and cross-checked.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { billingEnv } from "../../services/billing/src/config.ts";
import { correctionWorkerEnv } from "../../services/correction-worker/src/config.ts";
import { gatewayEnv } from "../../services/gateway/src/config.ts";
import { transcriptionWorkerEnv } from "../../services/transcription-worker/src/config.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (p: string) => readFileSync(path.join(ROOT, p), "utf8");

type Service = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: unknown;
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  environment?: Record<string, string> | string[];
  restart?: string;
};
const compose = parse(read("docker-compose.yml"), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;

const EXPECTED = [
  "postgres",
  "redis",
  "minio",
  "minio-init",
  "mailpit",
  "migrate",
  "gateway",
  "transcription-worker",
  "correction-worker",
  "billing",
];
/** One-shot services: they run to completion, so no healthcheck. */
const ONE_SHOT = new Set(["minio-init", "migrate"]);
const APP = ["gateway", "transcription-worker", "correction-worker", "billing"];

describe("docker-compose.yml", () => {
  it("defines every service", () => {
    expect(Object.keys(services).sort()).toEqual([...EXPECTED].sort());
  });

  it.each(EXPECTED.filter((s) => !ONE_SHOT.has(s)))("%s has a healthcheck", (name) => {
    const hc = services[name].healthcheck;
    expect(hc?.disable).not.toBe(true);
    expect(Array.isArray(hc?.test) || typeof hc?.test === "string").toBe(true);
  });

  it("runs the one-shot services once", () => {
    for (const name of ONE_SHOT) expect(services[name].restart).toBe("no");
  });

  it("only depends on defined services, with conditions that fit them", () => {
    for (const [name, svc] of Object.entries(services)) {
      const deps = svc.depends_on ?? {};
      expect(Array.isArray(deps)).toBe(false); // long form everywhere, with a condition
      for (const [dep, spec] of Object.entries(deps as Record<string, { condition?: string }>)) {
        expect({ service: name, dependsOn: dep, defined: dep in services }).toEqual({
          service: name,
          dependsOn: dep,
          defined: true,
        });
        expect(["service_healthy", "service_completed_successfully", "service_started"]).toContain(spec.condition);
        if (spec.condition === "service_healthy") expect(services[dep].healthcheck?.test).toBeDefined();
        if (spec.condition === "service_completed_successfully") expect(ONE_SHOT.has(dep)).toBe(true);
      }
    }
  });

  it("starts the app services only after the migration and the bucket exist", () => {
    for (const name of APP) {
      const deps = services[name].depends_on as Record<string, { condition?: string }>;
      expect(deps.migrate?.condition).toBe("service_completed_successfully");
      expect(deps.redis?.condition).toBe("service_healthy");
    }
    for (const name of ["gateway", "transcription-worker", "correction-worker"]) {
      const deps = services[name].depends_on as Record<string, { condition?: string }>;
      expect(deps["minio-init"]?.condition).toBe("service_completed_successfully");
    }
  });

  it("keeps Redis from evicting queue keys and requires a JWT secret", () => {
    expect(JSON.stringify(services.redis.command)).toContain("noeviction");
    const gatewayEnvVars = services.gateway.environment as Record<string, string>;
    expect(gatewayEnvVars.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?.+\}$/);
    expect(gatewayEnvVars.SMTP_URL).toBe("smtp://mailpit:1025");
    expect(gatewayEnvVars.S3_ENDPOINT).toBe("http://minio:9000");
  });

  it("declares the named volumes it mounts", () => {
    const text = read("docker-compose.yml");
    for (const m of text.matchAll(/^\s+- (\w+):\/[\w/.-]+$/gm)) {
      expect(Object.keys(compose.volumes ?? {})).toContain(m[1]);
    }
  });

  const builds = Object.entries(services)
    .filter(([, s]) => s.build)
    .map(([name, s]) => {
      const b = typeof s.build === "string" ? { context: s.build } : s.build!;
      return [name, path.join(b.context ?? ".", b.dockerfile ?? "Dockerfile")] as const;
    });

  it("builds every app service from a Dockerfile", () => {
    expect(builds.map(([n]) => n).sort()).toEqual([...APP, "migrate"].sort());
  });

  it.each(builds)("%s: %s exists, is multi-stage and runs as a non-root user", (_name, file) => {
    const full = path.join(ROOT, file);
    expect(existsSync(full)).toBe(true);
    const text = readFileSync(full, "utf8");
    const lines = text.split("\n").map((l) => l.trim());
    const froms = lines.filter((l) => /^FROM\s/i.test(l));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    expect(froms.some((l) => /\sAS\s+[\w.-]+$/i.test(l))).toBe(true);
    const users = lines.filter((l) => /^USER\s/i.test(l)).map((l) => l.split(/\s+/)[1]);
    expect(users.length).toBeGreaterThan(0);
    expect(["root", "0", "0:0", "root:root"]).not.toContain(users[users.length - 1]);
    expect(text).toMatch(/^HEALTHCHECK\s/m);
    expect(text).toMatch(/npm ci/);
  });

  it.each(APP)("the %s image starts its own main.ts with tsx", (name) => {
    const file = builds.find(([n]) => n === name)![1];
    const text = read(file);
    const cmd = text.match(/^CMD\s+(\[.*\])\s*$/m);
    expect(cmd).not.toBeNull();
    const argv = JSON.parse(cmd![1]) as string[];
    expect(argv.slice(0, 3)).toEqual(["node", "--import", "tsx"]);
    expect(argv[3]).toBe(`services/${name}/src/main.ts`);
    expect(existsSync(path.join(ROOT, argv[3]))).toBe(true);
  });
});

describe(".env.example", () => {
  const text = read(".env.example");
  const listed = new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));

  const keysOf = (schema: unknown): string[] => {
    const s = schema as { shape?: object; def?: { in?: { shape?: object } } };
    return Object.keys(s.shape ?? s.def?.in?.shape ?? {});
  };

  it.each([
    ["gateway", gatewayEnv],
    ["transcription-worker", transcriptionWorkerEnv],
    ["correction-worker", correctionWorkerEnv],
    ["billing", billingEnv],
  ])("lists every variable of the %s config", (_name, schema) => {
    const keys = keysOf(schema);
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => !listed.has(k))).toEqual([]);
  });

  it("lists every variable docker-compose.yml substitutes", () => {
    const yamlText = read("docker-compose.yml")
      .split("\n")
      .filter((l) => !l.trim().startsWith("#"))
      .join("\n");
    const used = new Set([...yamlText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((k) => !listed.has(k))).toEqual([]);
  });
});

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(entry) ? [p] : [];
  });
}

type K8sDoc = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  resources?: string[];
  spec?: {
    template?: {
      spec?: {
        securityContext?: { runAsNonRoot?: boolean };
        containers?: Array<{
          name: string;
          livenessProbe?: unknown;
          readinessProbe?: unknown;
          resources?: { requests?: unknown; limits?: unknown };
          securityContext?: { runAsNonRoot?: boolean };
        }>;
      };
    };
  };
};

describe("k8s manifests", () => {
  const files = yamlFiles(path.join(ROOT, "k8s"));
  const docs = files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, "utf8")).map((d) => {
      expect(d.errors).toEqual([]);
      return { file: path.relative(ROOT, file), doc: d.toJS() as K8sDoc };
    }),
  );
  const objects = docs.filter((d) => d.doc && d.doc.kind !== "Kustomization");

  it("has a base and dev/prod overlays", () => {
    for (const k of ["k8s/base", "k8s/overlays/dev", "k8s/overlays/prod"]) {
      expect(existsSync(path.join(ROOT, k, "kustomization.yaml"))).toBe(true);
    }
  });

  it("gives every document an apiVersion, a kind and (objects) a name", () => {
    expect(docs.length).toBeGreaterThan(0);
    for (const { file, doc } of docs) {
      expect({ file, apiVersion: typeof doc.apiVersion, kind: typeof doc.kind }).toEqual({
        file,
        apiVersion: "string",
        kind: "string",
      });
    }
    for (const { file, doc } of objects)
      expect({ file, name: typeof doc.metadata?.name }).toEqual({ file, name: "string" });
  });

  it("lists only existing files as kustomization resources", () => {
    for (const { file, doc } of docs.filter((d) => d.doc.kind === "Kustomization")) {
      for (const r of doc.resources ?? []) expect(existsSync(path.join(ROOT, path.dirname(file), r))).toBe(true);
    }
  });

  const deployments = objects.filter((d) => d.doc.kind === "Deployment");

  it("deploys each service with a Service in front", () => {
    const names = deployments.map((d) => d.doc.metadata!.name).sort();
    expect(names).toEqual([...APP].sort());
    const svcNames = objects.filter((d) => d.doc.kind === "Service").map((d) => d.doc.metadata!.name);
    for (const n of names) expect(svcNames).toContain(n);
  });

  it.each(deployments.map((d) => [d.doc.metadata!.name!, d.doc] as const))(
    "Deployment %s has probes, resources and runs as non-root",
    (_name, doc) => {
      const pod = doc.spec!.template!.spec!;
      expect(pod.containers?.length).toBeGreaterThan(0);
      for (const c of pod.containers!) {
        expect(c.livenessProbe).toBeDefined();
        expect(c.readinessProbe).toBeDefined();
        expect(c.resources?.requests).toBeDefined();
        expect(c.resources?.limits).toBeDefined();
        expect(pod.securityContext?.runAsNonRoot === true || c.securityContext?.runAsNonRoot === true).toBe(true);
      }
    },
  );

  it("routes /ws through the gateway ingress", () => {
    const ingress = objects.find((d) => d.doc.kind === "Ingress")?.doc as unknown as {
      spec: { rules: Array<{ http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }> };
    };
    const paths = ingress.spec.rules.flatMap((r) => r.http.paths);
    expect(paths.find((p) => p.path === "/ws")?.backend.service.name).toBe("gateway");
  });
});
