// What production needs beyond the shape checks of k8s.unit.test.ts: egress limited per service (with
// the metadata endpoint unreachable), storage classes on every shared claim, models that fail closed,
// alert rules on metrics that exist, Pod Security Admission, one ServiceAccount per workload, the
// PgBouncer connection math, and no withdrawn MinIO image anywhere. Rendered like an operator would:
// a copy of k8s/ with secrets.env filled from its example.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { MAX_UPLOAD_BYTES } from "@kikitori/shared";
import { gatewayEnv } from "../../services/gateway/src/config.ts";
import { type K8sObject, podContainers, renderKustomization } from "./kustomize.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const K8S = mkdtempSync(path.join(os.tmpdir(), "kikitori-k8s-prod-"));
cpSync(path.join(ROOT, "k8s"), K8S, { recursive: true });
writeFileSync(
  path.join(K8S, "overlays/prod/secrets.env"),
  readFileSync(path.join(K8S, "overlays/prod/secrets.env.example"), "utf8").replace(
    /CHANGE-ME(-[A-Z]+)?/g,
    "filled-in-by-the-operator-0123456789",
  ),
);
afterAll(() => rmSync(K8S, { recursive: true, force: true }));
const render = (o: string) => renderKustomization(path.join(K8S, "overlays", o));
const prod = render("prod");
const prodGpu = render("prod-gpu");
const dev = render("dev");
const APPS = ["gateway", "transcription-worker", "text-worker", "billing"];

const appName = (o: K8sObject) => o.spec?.podSelector?.matchLabels?.["app.kubernetes.io/name"] as string | undefined;
const egressPolicies = (objs: K8sObject[]) =>
  objs.filter((o) => o.kind === "NetworkPolicy" && (o.spec.policyTypes ?? []).includes("Egress"));

/** IPv4 CIDR contains address. */
const inCidr = (cidr: string, ip: string) => {
  const [base, bits] = cidr.split("/");
  const n = (a: string) => a.split(".").reduce((acc, x) => acc * 256 + Number(x), 0) >>> 0;
  const prefix = Number(bits);
  return prefix === 0 || (n(base) ^ n(ip)) >>> (32 - prefix) === 0;
};

describe.each([
  ["prod", prod],
  ["prod-gpu", prodGpu],
])("%s: egress", (_name, objs) => {
  const policies = egressPolicies(objs);

  it("denies all egress by default", () => {
    const deny = policies.find((p) => JSON.stringify(p.spec.podSelector) === "{}" && !p.spec.egress);
    expect(deny?.metadata.name).toBe("default-deny-egress");
    expect(deny?.spec.policyTypes).toEqual(["Egress"]);
  });

  it("allows DNS to every pod, and each service its own destinations (at least four per-service policies)", () => {
    const dns = policies.find((p) => p.metadata.name === "egress-dns")!;
    expect(dns.spec.podSelector).toEqual({});
    expect(dns.spec.egress[0].ports.map((p: { port: number }) => p.port)).toEqual([53, 53]);
    const perService = policies.filter((p) => appName(p) && APPS.includes(appName(p)!));
    expect(new Set(perService.map(appName)).size).toBe(4);
    expect(perService.length).toBeGreaterThanOrEqual(4);
    // Every Deployment and Job of the namespace has an egress policy of its own.
    for (const w of objs.filter((o) => o.kind === "Deployment" || o.kind === "Job")) {
      const label = w.spec.template.metadata.labels["app.kubernetes.io/name"];
      expect({ workload: label, covered: policies.some((p) => appName(p) === label) }).toEqual({
        workload: label,
        covered: true,
      });
    }
  });

  it("never lets a pod reach the cloud metadata endpoint", () => {
    for (const p of policies) {
      for (const rule of p.spec.egress ?? []) {
        for (const to of rule.to ?? []) {
          if (!to.ipBlock) continue;
          const covers = inCidr(to.ipBlock.cidr, "169.254.169.254");
          const excepted = (to.ipBlock.except ?? []).some((c: string) => inCidr(c, "169.254.169.254"));
          expect({ policy: p.metadata.name, cidr: to.ipBlock.cidr, reachable: covers && !excepted }).toEqual({
            policy: p.metadata.name,
            cidr: to.ipBlock.cidr,
            reachable: false,
          });
        }
      }
    }
  });

  it("gives internet HTTPS only to the model pull, billing (Stripe), the language-model caller and the speech servers", () => {
    const https = policies.filter((p) =>
      (p.spec.egress ?? []).some(
        (r: any) =>
          r.to?.some((t: any) => t.ipBlock?.cidr === "0.0.0.0/0") && r.ports?.some((x: any) => x.port === 443),
      ),
    );
    expect(https.map(appName).sort()).toEqual(
      ["billing", "text-worker", "kikitori-models", ...(_name === "prod-gpu" ? ["speech"] : [])].sort(),
    );
    // Internet HTTPS leaves out the private ranges (the API server, in-cluster services).
    for (const p of https) {
      for (const r of p.spec.egress.filter((x: any) => x.ports?.some((y: any) => y.port === 443))) {
        expect(r.to[0].ipBlock.except).toEqual(
          expect.arrayContaining(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]),
        );
      }
    }
  });
});

describe("storage classes", () => {
  it.each([
    ["dev", dev],
    ["prod", prod],
    ["prod-gpu", prodGpu],
  ])("%s: every claim names its class; ReadWriteMany only on the RWX class", (name, objs) => {
    const claims = objs.filter((o) => o.kind === "PersistentVolumeClaim");
    expect(claims.length).toBeGreaterThanOrEqual(1);
    for (const c of claims) {
      expect({ claim: c.metadata.name, cls: c.spec.storageClassName ?? null }).toEqual({
        claim: c.metadata.name,
        cls: expect.any(String),
      });
      if (c.spec.accessModes.includes("ReadWriteMany")) expect(c.spec.storageClassName).toBe("kikitori-rwx");
    }
    // kind's local-path (`standard`) is ReadWriteOnce only.
    if (name === "dev")
      expect(claims.map((c) => [c.spec.storageClassName, c.spec.accessModes])).toEqual([
        ["standard", ["ReadWriteOnce"]],
      ]);
  });
});

describe("models fail closed", () => {
  it.each([
    ["dev", dev],
    ["prod", prod],
  ])("%s: the pull Job and the verify init container never swallow a failure", (_n, objs) => {
    for (const w of objs.filter((o) => o.spec?.template?.spec)) {
      for (const c of podContainers(w) as Array<{ name: string; command?: string[] }>) {
        expect({ c: c.name, cmd: (c.command ?? []).join(" ") }).toEqual({
          c: c.name,
          cmd: expect.not.stringMatching(/\|\|\s*(echo|true)\b/),
        });
      }
    }
    const pull = objs.find(
      (o) => o.kind === "Job" && o.metadata.labels?.["app.kubernetes.io/name"] === "kikitori-models",
    )!;
    expect(pull.spec.template.spec.containers[0].command).toEqual(["node", "dist/models.js", "pull"]);
    expect(pull.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    const worker = objs.find((o) => o.kind === "Deployment" && o.metadata.name === "transcription-worker")!;
    const init = worker.spec.template.spec.initContainers.find((i: { name: string }) => i.name === "models");
    expect(init.command.join(" ")).toMatch(/dist\/models\.js verify "\$WHISPER_MODEL"/);
    expect(init.volumeMounts.find((m: { name: string }) => m.name === "models").readOnly).toBe(true);
    const cfg = objs.find((o) => o.kind === "ConfigMap")!.data;
    expect(cfg.TRANSCRIPTION_FALLBACK).toBe("none");
  });
});

describe("alerts and dashboards", () => {
  const rules = prod.find((o) => o.kind === "PrometheusRule")!.spec.groups.flatMap((g: any) => g.rules);
  /** Metric names the services define (prom-client `name:`), plus the default process/Node metrics. */
  const source = execFileSync("grep", ["-rhoE", 'name: "[a-z_]+"', "services", "--include=*.ts"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const ours = new Set([...source.matchAll(/name: "([a-z_]+)"/g)].map((m) => m[1]));
  const EXPORTERS = [
    /^pg_(up|stat_database_numbackends|settings_max_connections)$/,
    /^redis_(up|memory_used_bytes|memory_max_bytes)$/,
    /^pgbouncer_pools_client_waiting_connections$/,
    /^up$/,
  ];

  it("has the rules an operator needs, on metrics that exist", () => {
    const names = rules.map((r: { alert: string }) => r.alert);
    expect(names.length).toBeGreaterThanOrEqual(4);
    for (const a of [
      "KikitoriQueueBacklog",
      "KikitoriQueueStuck",
      "KikitoriJobsFailing",
      "KikitoriHttp5xx",
      "KikitoriHttpSlow",
      "KikitoriWorkerDown",
      "KikitoriSpeechModelMissing",
      "KikitoriRedisMemoryHigh",
      "KikitoriPgBouncerClientsWaiting",
    ])
      expect(names).toContain(a);
    for (const r of rules) {
      // Metric names: what is left once label matchers, `by (...)` lists and functions are taken out.
      const bare = String(r.expr)
        .replace(/\{[^}]*\}/g, " ")
        .replace(/\bby\s*\([^)]*\)/g, " ")
        .replace(/\[[^\]]*\]/g, " ");
      const FUNCTIONS = new Set(["sum", "max", "rate", "absent", "and", "or", "histogram_quantile"]);
      const metrics = (bare.match(/[a-z_][a-z0-9_]*/g) ?? []).filter((m) => !FUNCTIONS.has(m));
      expect(metrics.length).toBeGreaterThan(0);
      for (const m of metrics) {
        const base = m.replace(/_(bucket|count|sum)$/, "");
        const known = ours.has(m) || ours.has(base) || EXPORTERS.some((re) => re.test(m));
        expect({ alert: r.alert, metric: m, known }).toEqual({ alert: r.alert, metric: m, known: true });
      }
      expect(r.for).toMatch(/^\d+m$/);
      expect(r.labels.severity).toMatch(/^(warning|critical)$/);
    }
  });

  it("ships exporters for PostgreSQL, Redis and PgBouncer, and a Grafana dashboard on the same metrics", () => {
    for (const e of ["postgres-exporter", "redis-exporter", "pgbouncer-exporter"]) {
      expect(prod.some((o) => o.kind === "Deployment" && o.metadata.name === e)).toBe(true);
      expect(prod.some((o) => o.kind === "PodMonitor" && o.metadata.name === e)).toBe(true);
    }
    const dash = JSON.parse(readFileSync(path.join(ROOT, "infra/grafana/kikitori.json"), "utf8"));
    const exprs: string[] = dash.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(6);
    const text = exprs.join("\n");
    for (const m of [
      "kikitori_queue_depth",
      "kikitori_job_duration_seconds",
      "http_request_duration_seconds",
      "kikitori_speech_model_missing",
    ])
      expect(text).toContain(m);
  });
});

describe("pods and accounts", () => {
  it.each([
    ["dev", dev, "kikitori-dev"],
    ["prod", prod, "kikitori"],
  ])("%s: the namespace enforces the restricted Pod Security profile, and every pod meets it", (_n, objs, ns) => {
    const namespace = objs.find((o) => o.kind === "Namespace")!;
    expect(namespace.metadata.name).toBe(ns);
    expect(namespace.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    for (const w of objs.filter((o) => o.spec?.template?.spec)) {
      const pod = w.spec.template.spec;
      expect(pod.securityContext?.seccompProfile?.type).toBe("RuntimeDefault");
      expect(pod.automountServiceAccountToken).toBe(false);
      // Its own ServiceAccount, which carries no token either.
      const sa = objs.find((o) => o.kind === "ServiceAccount" && o.metadata.name === pod.serviceAccountName);
      expect({ workload: w.metadata.name, account: sa?.automountServiceAccountToken }).toEqual({
        workload: w.metadata.name,
        account: false,
      });
      for (const c of podContainers(w) as Array<Record<string, any>>) {
        expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
        expect(c.securityContext?.capabilities?.drop).toEqual(["ALL"]);
        expect(c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot).toBe(true);
      }
    }
  });

  it("keeps PgBouncer's server connections within PostgreSQL's limit, rollouts included", () => {
    const d = prod.find((o) => o.kind === "Deployment" && o.metadata.name === "pgbouncer")!;
    const env = Object.fromEntries(
      d.spec.template.spec.containers[0].env.map((e: { name: string; value?: string }) => [e.name, e.value]),
    );
    const maxSurge = d.spec.strategy.rollingUpdate.maxSurge;
    const podsAtOnce = d.spec.replicas + maxSurge;
    const server = podsAtOnce * Number(env.MAX_DB_CONNECTIONS);
    const limit = Number(d.metadata.annotations!["kikitori.io/postgres-max-connections"]);
    const reserved = Number(d.metadata.annotations!["kikitori.io/postgres-reserved-connections"]);
    expect({ server, reserved, limit, fits: server + reserved <= limit }).toEqual({
      server,
      reserved,
      limit,
      fits: true,
    });
    expect(Number(env.DEFAULT_POOL_SIZE)).toBeLessThanOrEqual(Number(env.MAX_DB_CONNECTIONS));
  });
});

describe("gateway upload scratch", () => {
  const mib = (q: string) => {
    const m = /^(\d+)(Mi|Gi)$/.exec(q);
    if (!m) throw new Error(`unexpected quantity ${q}`);
    return Number(m[1]) * (m[2] === "Gi" ? 1024 : 1);
  };
  it.each([
    ["dev", dev],
    ["prod", prod],
  ])("%s: /tmp holds the spool slots at the upload cap, within the container's ephemeral-storage limit", (_n, objs) => {
    const d = objs.find((o) => o.kind === "Deployment" && o.metadata.name === "gateway")!;
    const slots = Number(d.spec.template.metadata.annotations["kikitori.io/upload-spool-slots"]);
    const perUser = Number(gatewayEnv.parse({ JWT_SECRET: "x".repeat(40) }).UPLOADS_IN_FLIGHT_PER_USER);
    expect(slots % perUser).toBe(0); // whole users at their cap
    expect(slots).toBeGreaterThanOrEqual(50 * perUser);
    const tmp = d.spec.template.spec.volumes.find((v: { name: string }) => v.name === "tmp").emptyDir.sizeLimit;
    const needed = (slots * MAX_UPLOAD_BYTES) / 2 ** 20 + 96;
    expect({ tmpMiB: mib(tmp), needed, fits: mib(tmp) >= needed }).toEqual({ tmpMiB: mib(tmp), needed, fits: true });
    const limit = d.spec.template.spec.containers[0].resources.limits["ephemeral-storage"];
    expect(mib(limit)).toBeGreaterThan(mib(tmp));
  });
});

/** A Deployment's main container, its env by name, and the Secret keys mounted into it as files. */
const credentials = (objs: K8sObject[], name: string) => {
  const pod = objs.find((o) => o.kind === "Deployment" && o.metadata.name === name)!.spec.template.spec;
  const c = pod.containers[0];
  const env = Object.fromEntries(c.env.map((e: any) => [e.name, e]));
  const mounted = pod.volumes.filter((v: any) => c.volumeMounts.some((m: any) => m.name === v.name));
  const sources = mounted.flatMap((v: any) => (v.projected?.sources ?? []).map((x: any) => x.secret).filter(Boolean));
  const files = Object.fromEntries(
    sources.flatMap((src: any) => src.items.map((i: any) => [i.path, { key: i.key, optional: Boolean(src.optional) }])),
  );
  const mountPath = c.volumeMounts.find((m: any) => m.name === mounted.find((v: any) => v.projected)?.name)?.mountPath;
  return { env, files, mountPath };
};

describe("credentials as files", () => {
  it.each([
    ["dev", dev],
    ["prod", prod],
  ])("%s: every service reads its credentials from files of the Secret, none from the environment", (_n, objs) => {
    const secret = objs.find((o) => o.kind === "Secret")!;
    const keys = new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})]);
    for (const name of APPS) {
      const { env, files, mountPath } = credentials(objs, name);
      expect(mountPath).toBe("/run/secrets/kikitori");
      // Left in the environment: REDIS_ADDRESS (read by KEDA, not the service) and the public Stripe key.
      const fromEnv = Object.values(env)
        .filter((e: any) => e.valueFrom?.secretKeyRef)
        .map((e: any) => e.name);
      expect(fromEnv.filter((n: string) => !["REDIS_ADDRESS", "STRIPE_PUBLISHABLE_KEY"].includes(n))).toEqual([]);
      for (const [path, { key, optional }] of Object.entries(files) as Array<
        [string, { key: string; optional: boolean }]
      >) {
        expect(env[`${key}_FILE`]?.value).toBe(`${mountPath}/${path}`);
        if (!optional) expect({ name, key, inSecret: keys.has(key) }).toEqual({ name, key, inSecret: true });
      }
      expect(Object.keys(files)).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL"]));
    }
  });
});

describe("billing's internal secret", () => {
  it.each([
    ["dev", dev],
    ["prod", prod],
  ])("%s: gateway and billing share INTERNAL_TOKEN; billing never receives JWT_SECRET", (_n, objs) => {
    const billing = credentials(objs, "billing");
    const gateway = credentials(objs, "gateway");
    expect(billing.files.JWT_SECRET).toBeUndefined();
    expect(billing.env.JWT_SECRET ?? billing.env.JWT_SECRET_FILE).toBeUndefined();
    expect(billing.files.INTERNAL_TOKEN).toEqual({ key: "INTERNAL_TOKEN", optional: false });
    expect(gateway.files.INTERNAL_TOKEN).toEqual(billing.files.INTERNAL_TOKEN);
    expect(gateway.files.JWT_SECRET).toEqual({ key: "JWT_SECRET", optional: false });
  });
});

describe("object store", () => {
  it("names no withdrawn MinIO image in any config of the repository", () => {
    const files = execFileSync("git", ["ls-files", "k8s", "infra", "docker-compose.yml", ".env.example", ".ci"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
    for (const f of files) {
      const text = readFileSync(path.join(ROOT, f), "utf8");
      expect({ f, minio: /minio\/(minio|mc)\b/.test(text) }).toEqual({ f, minio: false });
    }
    for (const objs of [dev, prod, prodGpu]) {
      for (const w of objs.filter((o) => o.spec?.template?.spec))
        for (const c of podContainers(w)) expect(c.image).not.toMatch(/minio/);
      const cfg = objs.find((o) => o.kind === "ConfigMap")!.data;
      expect(cfg.S3_ENDPOINT).toBe("http://objectstore:8333");
    }
  });
});
