// The Kubernetes manifests (k8s/): every overlay is rendered (tests/infra/kustomize.ts, checked against
// `kubectl kustomize` where kubectl exists), every object is validated against its API schema
// (kubernetes-models, @kubernetes-models/keda), and the objects are cross-checked with each other and
// with the services' own config schemas. No cluster is needed.
// The prod overlay takes its Secret from an untracked secrets.env: the overlays are rendered from a
// copy of k8s/ in which that file is written from secrets.env.example with realistic values, as an
// operator would; the copy also gets a test overlay combining the optional components.
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { QUEUES } from "@kikitori/shared";
import { isPlaceholderSecret, parseConfig } from "@kikitori/shared/server";
import { HTTPRoute } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1";
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { PodMonitor, PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { billingEnv } from "../../services/billing/src/config.ts";
import { gatewayEnv } from "../../services/gateway/src/config.ts";
import { textWorkerEnv } from "../../services/text-worker/src/config.ts";
import { transcriptionWorkerEnv } from "../../services/transcription-worker/src/config.ts";
import { readStages } from "./dockerfile.ts";
import {
  type K8sObject,
  kubectlKustomize,
  parseKustomizeEnvFile,
  podContainers,
  readKustomization,
  renderKustomization,
  secretValues,
} from "./kustomize.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCE_K8S = path.join(ROOT, "k8s");
const SECRETS_EXAMPLE = readFileSync(path.join(SOURCE_K8S, "overlays/prod/secrets.env.example"), "utf8");
/** secrets.env as an operator fills it in: every CHANGE-ME replaced by a random value (the same
 * CHANGE-ME-<NAME> by the same value: one password in two URLs). */
const filled = new Map<string, string>();
const SECRETS_ENV = SECRETS_EXAMPLE.replace(/CHANGE-ME(-[A-Z]+)?/g, (token) => {
  if (!filled.has(token)) filled.set(token, randomBytes(24).toString("base64url"));
  return filled.get(token)!;
});
const K8S = mkdtempSync(path.join(os.tmpdir(), "kikitori-k8s-"));
cpSync(SOURCE_K8S, K8S, { recursive: true });
writeFileSync(path.join(K8S, "overlays/prod/secrets.env"), SECRETS_ENV);
// The optional components that no shipped overlay uses, rendered on top of dev.
mkdirSync(path.join(K8S, "overlays/test-components"));
writeFileSync(
  path.join(K8S, "overlays/test-components/kustomization.yaml"),
  [
    "apiVersion: kustomize.config.k8s.io/v1beta1",
    "kind: Kustomization",
    "namespace: kikitori-dev",
    "resources: [../dev]",
    "components: [../../components/autoscaling-hpa, ../../components/monitoring]",
  ].join("\n"),
);
afterAll(() => rmSync(K8S, { recursive: true, force: true }));
const APPS = ["gateway", "transcription-worker", "text-worker", "billing"] as const;
type App = (typeof APPS)[number];

const SCHEMAS: Record<App, unknown> = {
  gateway: gatewayEnv,
  "transcription-worker": transcriptionWorkerEnv,
  "text-worker": textWorkerEnv,
  billing: billingEnv,
};
/** Queues each worker consumes (what its KEDA triggers may watch). */
const CONSUMES: Partial<Record<App, string[]>> = {
  "transcription-worker": [QUEUES.transcription, QUEUES.transcriptionChunk],
  "text-worker": [QUEUES.correction, QUEUES.text],
};

type ModelClass = new (data: any) => { validate(): void };
const MODELS: Record<string, ModelClass> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Namespace": Namespace,
  "v1/ServiceAccount": ServiceAccount,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "apps/v1/Deployment": Deployment,
  "batch/v1/Job": Job,
  "networking.k8s.io/v1/Ingress": Ingress,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
  "keda.sh/v1alpha1/TriggerAuthentication": TriggerAuthentication,
  "monitoring.coreos.com/v1/PodMonitor": PodMonitor,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
  "gateway.networking.k8s.io/v1/HTTPRoute": HTTPRoute,
};

const OVERLAYS = ["dev", "prod", "prod-gpu", "test-components"] as const;
type Overlay = (typeof OVERLAYS)[number];
const rendered = Object.fromEntries([
  ...OVERLAYS.map((o) => [o, renderKustomization(path.join(K8S, "overlays", o))] as const),
  ["base", renderKustomization(path.join(K8S, "base"))] as const,
]) as Record<Overlay | "base", K8sObject[]>;

/** Secret keys each service's containers may receive (workers never see Stripe keys or the JWT secret). */
const SECRET_KEYS: Record<App, string[]> = {
  gateway: ["DATABASE_URL", "REDIS_URL", "S3_ACCESS_KEY", "S3_SECRET_KEY", "JWT_SECRET", "INTERNAL_TOKEN", "SMTP_URL"],
  "transcription-worker": [
    "DATABASE_URL",
    "REDIS_URL",
    "REDIS_ADDRESS",
    "S3_ACCESS_KEY",
    "S3_SECRET_KEY",
    "OPENAI_API_KEY",
  ],
  "text-worker": ["DATABASE_URL", "REDIS_URL", "REDIS_ADDRESS", "S3_ACCESS_KEY", "S3_SECRET_KEY", "OPENAI_API_KEY"],
  // No JWT_SECRET: billing checks calls with its own INTERNAL_TOKEN and cannot mint user tokens.
  billing: [
    "DATABASE_URL",
    "REDIS_URL",
    "INTERNAL_TOKEN",
    "SMTP_URL",
    "STRIPE_SECRET_KEY",
    "STRIPE_PUBLISHABLE_KEY",
    "STRIPE_WEBHOOK_SECRET",
  ],
};
/** Secret keys no service reads: KEDA's (REDIS_ADDRESS via the scaled container, REDIS_PASSWORD) and
 * the migration Job's / PgBouncer's direct database address. */
const NOT_FOR_SERVICES = new Set(["REDIS_ADDRESS", "REDIS_PASSWORD", "MIGRATE_DATABASE_URL", "PGBOUNCER_STATS_URL"]);
/** Ops port of each service (/metrics, detailed /readyz). */
const OPS_PORT: Record<App, number> = {
  gateway: 3100,
  "transcription-worker": 3101,
  "text-worker": 3102,
  billing: 3103,
};

const keysOf = (schema: unknown): string[] => {
  const s = schema as { shape?: object; def?: { in?: { shape?: object } } };
  return Object.keys(s.shape ?? s.def?.in?.shape ?? {});
};
const parseWith = (schema: unknown, env: Record<string, string>) =>
  (
    schema as {
      safeParse: (e: unknown) => { success: boolean; error?: { issues: Array<{ path: unknown[]; message: string }> } };
    }
  ).safeParse(env);

const find = (objs: K8sObject[], kind: string, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name);
const get = (objs: K8sObject[], kind: string, name: string) => {
  const o = find(objs, kind, name);
  if (!o) throw new Error(`no ${kind}/${name}`);
  return o;
};
const mainContainer = (d: K8sObject) => d.spec.template.spec.containers[0];
type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
};
/** A container's own `env` values, secretKeyRefs resolved from `secret` (a missing optional key is left out). */
/** Where the services' credential files are mounted (a projected volume of kikitori-secrets). */
const SECRETS_DIR = "/run/secrets/kikitori/";
/**
 * A container's own `env` values, secretKeyRefs resolved from `secret` (a missing optional key is left
 * out), and `<NAME>_FILE` pointing into the mounted Secret read the way the kubelet writes the file:
 * NAME gets that key's value, as the service's config loading does.
 */
const envOf = (c: { env?: EnvVar[] }, secret: Record<string, string> = {}) => {
  const out: Record<string, string> = {};
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (!ref && e.name.endsWith("_FILE") && e.value?.startsWith(SECRETS_DIR)) {
      const key = e.value.slice(SECRETS_DIR.length);
      if (key in secret) out[e.name.slice(0, -"_FILE".length)] = secret[key];
    } else if (!ref) out[e.name] = e.value ?? "";
    else if (ref.key in secret) out[e.name] = secret[ref.key];
    else if (!ref.optional) throw new Error(`${e.name}: key ${ref.key} is not in the Secret`);
  }
  return out;
};
/**
 * The Secret keys a container reads (secretKeyRef, or files of a Secret volume it mounts, given its
 * pod), and whether it takes a whole Secret (envFrom, or a Secret volume without `items`).
 */
const secretKeysOf = (
  c: { env?: EnvVar[]; envFrom?: Array<{ secretRef?: unknown }>; volumeMounts?: Array<{ name: string }> },
  pod?: { volumes?: any[] },
) => {
  const mounted = (pod?.volumes ?? []).filter((v) => (c.volumeMounts ?? []).some((m) => m.name === v.name));
  const sources = mounted.flatMap((v) => [
    ...(v.secret ? [{ ...v.secret, name: v.secret.secretName }] : []),
    ...(v.projected?.sources ?? []).flatMap((src: any) => (src.secret ? [src.secret] : [])),
  ]);
  return {
    keys: [
      ...(c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.key] : [])),
      ...sources.flatMap((src: any) => (src.items ?? []).map((i: { key: string }) => i.key)),
    ],
    wholeSecret: (c.envFrom ?? []).some((e) => e.secretRef) || sources.some((src: any) => !src.items),
  };
};
const secretOf = (objs: K8sObject[]) => secretValues(get(objs, "Secret", "kikitori-secrets"));
const configOf = (objs: K8sObject[]) => get(objs, "ConfigMap", "kikitori-config").data as Record<string, string>;
/** The parsed configuration a service's main container would start with. */
const serviceConfig = (objs: K8sObject[], name: App): Record<string, unknown> => {
  const env = { ...configOf(objs), ...envOf(mainContainer(get(objs, "Deployment", name)), secretOf(objs)) };
  const r = parseWith(SCHEMAS[name], env) as { success: boolean; data?: Record<string, unknown> };
  if (!r.success) throw new Error(`${name}: invalid configuration`);
  return r.data!;
};
/** The longest single step of a service: what SHUTDOWN_TIMEOUT_MS must let finish. */
const longestStepMs = (objs: K8sObject[], name: App): number => {
  const cfg = serviceConfig(objs, name);
  switch (name) {
    case "gateway": // a request in flight: a text call, or a billing call forwarded
      return Math.max(Number(cfg.TEXT_JOB_TIMEOUT_MS), Number(cfg.BILLING_TIMEOUT_MS));
    case "transcription-worker": // one chunk
      return cfg.TRANSCRIPTION_ENGINE === "openai"
        ? Number(cfg.OPENAI_TIMEOUT_MS)
        : Number(cfg.WHISPER_CHUNK_TIMEOUT_MS);
    case "text-worker": // one language-model call
      return Number(cfg.OPENAI_TIMEOUT_MS);
    case "billing": // an internal API call, which the gateway abandons after BILLING_TIMEOUT_MS
      return Number(serviceConfig(objs, "gateway").BILLING_TIMEOUT_MS);
  }
};

/** CPU quantity in cores ("500m" → 0.5, "2" → 2). */
const cores = (q: string | number) =>
  typeof q === "number" ? q : q.endsWith("m") ? Number(q.slice(0, -1)) / 1000 : Number(q);

describe("kustomize files", () => {
  it("has a base, dev and prod overlays, and the optional components", () => {
    for (const d of [
      "base",
      "overlays/dev",
      "overlays/prod",
      "overlays/prod-gpu",
      "components/autoscaling-keda",
      "components/autoscaling-hpa",
      "components/gpu-speech",
      "components/pgbouncer",
      "components/monitoring",
    ]) {
      expect({ d, kind: readKustomization(path.join(SOURCE_K8S, d)).kind }).toEqual({
        d,
        kind: d.startsWith("components") ? "Component" : "Kustomization",
      });
    }
  });

  const kubectl = kubectlKustomize(path.join(K8S, "base")) !== null;
  (kubectl ? it.each(OVERLAYS) : it.skip.each(OVERLAYS))("%s renders the same as `kubectl kustomize`", (overlay) => {
    // kubectl folds long base64 values over several lines.
    const unfold = (o: K8sObject) =>
      o.kind === "Secret" && o.data
        ? { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, String(v).replace(/\s/g, "")])) }
        : o;
    const sort = (objs: K8sObject[]) =>
      [...objs]
        .map(unfold)
        .sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
    const theirs = kubectlKustomize(path.join(K8S, "overlays", overlay))!;
    expect(sort(rendered[overlay])).toEqual(sort(theirs));
  });

  it("keeps the prod secrets file out of git and credentials out of the base", () => {
    expect(readFileSync(path.join(ROOT, ".gitignore"), "utf8")).toMatch(/^k8s\/overlays\/\*\/secrets\.env$/m);
    expect(existsSync(path.join(SOURCE_K8S, "base/secret.yaml"))).toBe(false);
    expect(rendered.base.some((o) => o.kind === "Secret")).toBe(false);
    const gen = readKustomization(path.join(SOURCE_K8S, "overlays/prod")).secretGenerator ?? [];
    expect(gen.map((g) => [g.name, g.envs])).toEqual([["kikitori-secrets", ["secrets.env"]]]);
  });
});

describe.each(OVERLAYS)("overlay %s", (overlay) => {
  const objs = rendered[overlay];
  const deployments = objs.filter((o) => o.kind === "Deployment");
  const appDeployments = deployments.filter((d) => (APPS as readonly string[]).includes(d.metadata.name));
  const config = configOf(objs);
  const secret = secretOf(objs);
  const namespace = overlay === "prod" || overlay === "prod-gpu" ? "kikitori" : "kikitori-dev";
  const pods = objs.filter((o) => o.spec?.template?.spec);

  it.each(objs.map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
    "%s is valid against its API schema",
    (_n, o) => {
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect({ kind: `${o.apiVersion}/${o.kind}`, known: Boolean(Model) }).toEqual({
        kind: `${o.apiVersion}/${o.kind}`,
        known: true,
      });
      expect(() => new Model(o).validate()).not.toThrow();
      if (o.kind === "Namespace") expect(o.metadata.name).toBe(namespace);
      else expect(o.metadata.namespace).toBe(namespace);
      expect(o.metadata.labels?.["app.kubernetes.io/part-of"]).toBe("kikitori");
    },
  );

  it("has a Deployment, a Service and a PodDisruptionBudget per service, the Ingress, ConfigMap, Secret and migration Job", () => {
    expect(appDeployments.map((d) => d.metadata.name).sort()).toEqual([...APPS].sort());
    for (const d of deployments) {
      const labels = d.spec.template.metadata.labels;
      expect(d.spec.selector.matchLabels).toEqual(labels);
      const svc = objs.find(
        (o) => o.kind === "Service" && Object.entries(o.spec.selector).every(([k, v]) => labels[k] === v),
      );
      expect({ deployment: d.metadata.name, service: Boolean(svc) }).toEqual({
        deployment: d.metadata.name,
        service: true,
      });
      const pdb = objs.find(
        (o) =>
          o.kind === "PodDisruptionBudget" &&
          Object.entries(o.spec.selector.matchLabels).every(([k, v]) => labels[k] === v),
      );
      expect({ deployment: d.metadata.name, pdb: Boolean(pdb) }).toEqual({ deployment: d.metadata.name, pdb: true });
      // A budget that keeps one pod of a single-replica Deployment would block every drain.
      if (pdb?.spec.minAvailable !== undefined) expect(d.spec.replicas ?? 2).toBeGreaterThan(pdb.spec.minAvailable);
    }
    for (const kind of ["ConfigMap", "Secret", "Job"]) expect(objs.some((o) => o.kind === kind)).toBe(true);
    // The public entry: a Gateway API HTTPRoute, or (components/ingress-nginx) an Ingress instead.
    expect(objs.filter((o) => o.kind === "Ingress" || o.kind === "HTTPRoute").map((o) => o.kind)).toHaveLength(1);
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    "Deployment %s: startup, liveness and readiness probes, requests and limits (with ephemeral storage), non-root, no privilege escalation, no service-account token",
    (name, d) => {
      const pod = d.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      const c = mainContainer(d);
      const portNames = (c.ports ?? []).map((p: { name: string }) => p.name);
      for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
        expect({ probe, set: Boolean(c[probe]) }).toEqual({ probe, set: true });
        const port = c[probe].httpGet?.port ?? c[probe].tcpSocket?.port;
        expect(portNames).toContain(port);
      }
      if ((APPS as readonly string[]).includes(name)) {
        expect(c.livenessProbe.httpGet.path).toBe("/healthz");
        expect(c.readinessProbe.httpGet.path).toBe("/readyz");
      }
      if (name === "speech") expect(c.readinessProbe.httpGet.path).toBe("/health"); // its own health path
      for (const cont of podContainers(d) as Array<Record<string, any>>) {
        const req = cont.resources?.requests ?? {};
        const lim = cont.resources?.limits ?? {};
        expect({ c: cont.name, requests: Boolean(req.cpu && req.memory && req["ephemeral-storage"]) }).toEqual({
          c: cont.name,
          requests: true,
        });
        expect({ c: cont.name, limits: Boolean(lim.cpu && lim.memory && lim["ephemeral-storage"]) }).toEqual({
          c: cont.name,
          limits: true,
        });
        expect(cont.securityContext?.runAsNonRoot).toBe(true);
        expect(cont.securityContext?.allowPrivilegeEscalation).toBe(false);
        expect(cont.securityContext?.capabilities?.drop).toEqual(["ALL"]);
      }
    },
  );

  it.each(appDeployments.map((d) => [d.metadata.name as App, d] as const))(
    "Deployment %s: waits for the migration, runs its own image read-only, and grace > shutdown > longest step",
    (name, d) => {
      const pod = d.spec.template.spec;
      const c = mainContainer(d);
      expect(c.image).toMatch(new RegExp(`(^|/)kikitori/${name}:[\\w.-]+(@sha256:[a-f0-9]{64})?$`));
      expect(readStages(path.join(ROOT, "infra/Dockerfile")).has(name)).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toContain("/tmp");

      const init = pod.initContainers.find((i: { name: string }) => i.name === "wait-for-migrations");
      expect(init.image).toBe(c.image);
      expect(init.command).toEqual(["node", "dist/wait-for-migrations.js"]);
      expect(existsSync(path.join(ROOT, "infra/wait-for-migrations.ts"))).toBe(true);
      expect(secretKeysOf(init)).toEqual({ keys: ["DATABASE_URL"], wholeSecret: false });
      expect(secret.DATABASE_URL).toMatch(/^postgres(ql)?:\/\//);

      const cfg = serviceConfig(objs, name);
      const shutdownMs = Number(cfg.SHUTDOWN_TIMEOUT_MS);
      const preStopMs =
        Number(c.lifecycle?.preStop?.exec?.command?.[0] === "sleep" ? c.lifecycle.preStop.exec.command[1] : 0) * 1000;
      const order = {
        name,
        graceMs: pod.terminationGracePeriodSeconds * 1000,
        preStopPlusShutdownMs: preStopMs + shutdownMs,
        shutdownMs,
        longestStepMs: longestStepMs(objs, name),
      };
      expect({ ...order, graceAboveShutdown: order.graceMs > order.preStopPlusShutdownMs }).toEqual({
        ...order,
        graceAboveShutdown: true,
      });
      expect({ ...order, shutdownAboveStep: order.shutdownMs > order.longestStepMs }).toEqual({
        ...order,
        shutdownAboveStep: true,
      });
      expect(c.envFrom).toEqual([{ configMapRef: { name: "kikitori-config" } }]);
      expect(d.spec.template.metadata.annotations["prometheus.io/scrape"]).toBe("true");
      expect(d.spec.template.metadata.annotations["prometheus.io/port"]).toBe(String(OPS_PORT[name]));
      const ops = c.ports.find((p: { name: string }) => p.name === "ops");
      expect(ops.containerPort).toBe(OPS_PORT[name]);
      expect(Number(cfg.OPS_PORT)).toBe(OPS_PORT[name]);
    },
  );

  it.each(APPS)("the %s container receives only its own Secret keys, by name", (name) => {
    const pod = get(objs, "Deployment", name).spec.template.spec;
    for (const c of podContainers(get(objs, "Deployment", name)) as Array<Record<string, any>>) {
      const { keys, wholeSecret } = secretKeysOf(c, pod);
      expect({ c: c.name, wholeSecret }).toEqual({ c: c.name, wholeSecret: false });
      expect({ c: c.name, foreign: keys.filter((k) => !SECRET_KEYS[name].includes(k)) }).toEqual({
        c: c.name,
        foreign: [],
      });
    }
    if (name !== "billing") {
      const keys = secretKeysOf(mainContainer(get(objs, "Deployment", name)), pod).keys;
      expect(keys.filter((k) => k.startsWith("STRIPE_"))).toEqual([]);
    }
  });

  it.each(APPS)(
    "the %s container's environment (ConfigMap + its Secret keys + env) is a valid config of that service",
    (name) => {
      const d = get(objs, "Deployment", name);
      const own = envOf(mainContainer(d), secret);
      const env = { ...config, ...own };
      const r = parseWith(SCHEMAS[name], env);
      expect(r.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? []).toEqual([]);
      // No typos: every variable the Deployment sets itself is one its service reads (or KEDA's).
      const known = new Set(keysOf(SCHEMAS[name]));
      expect(Object.keys(own).filter((k) => !known.has(k) && !NOT_FOR_SERVICES.has(k))).toEqual([]);
      // And the service really starts with it (no placeholder left, files readable).
      expect(() => parseConfig(name, SCHEMAS[name] as never, env)).not.toThrow();
    },
  );

  it("only puts variables some service reads into the ConfigMap and Secret", () => {
    const known = new Set(APPS.flatMap((a) => keysOf(SCHEMAS[a])));
    expect(Object.keys(config).filter((k) => !known.has(k))).toEqual([]);
    expect(Object.keys(secret).filter((k) => !known.has(k) && !NOT_FOR_SERVICES.has(k))).toEqual([]);
    // Every Secret key a container asks for without `optional` exists.
    for (const p of pods) {
      for (const c of podContainers(p) as Array<{ env?: EnvVar[] }>) {
        expect(() => envOf(c, secret)).not.toThrow();
      }
    }
  });

  it("carries no template placeholder in any credential", () => {
    expect(Object.entries(secret).filter(([, v]) => isPlaceholderSecret(v))).toEqual([]);
  });

  it("keeps the transcription worker's chunk concurrency within its CPU limit", () => {
    const c = mainContainer(get(objs, "Deployment", "transcription-worker"));
    const n = Number(envOf(c, secret).CHUNK_CONCURRENCY);
    expect(n).toBeGreaterThanOrEqual(1);
    if ((envOf(c, secret).TRANSCRIPTION_ENGINE ?? config.TRANSCRIPTION_ENGINE) === "pocketsphinx") {
      expect(n).toBeLessThanOrEqual(cores(c.resources.limits.cpu));
    }
  });

  it("fronts the gateway with an HTTPRoute (or an Ingress) on the app port only", () => {
    const svc = get(objs, "Service", "gateway");
    const route = find(objs, "HTTPRoute", "gateway");
    if (route) {
      const refs = route.spec.rules.flatMap((r: any) => r.backendRefs);
      expect(refs).toEqual([{ name: "gateway", port: 80 }]);
      expect(svc.spec.ports.find((p: { port: number }) => p.port === 80).name).toBe("http");
      // The policy admits the namespace the route's Gateway runs in (the same parameter).
      const policy = get(objs, "NetworkPolicy", "gateway");
      expect(policy.spec.ingress[0].ports).toEqual([{ protocol: "TCP", port: 3000 }]);
      return;
    }
    const ing = get(objs, "Ingress", "gateway");
    const paths = ing.spec.rules.flatMap((r: any) => r.http.paths);
    const ws = paths.find((p: any) => p.path === "/ws");
    expect(ws.backend.service.name).toBe("gateway");
    for (const p of paths) {
      expect(p.backend.service.name).toBe("gateway");
      expect(p.backend.service.port.name).toBe("http");
    }
    const a = ing.metadata.annotations ?? {};
    expect(Number(a["nginx.ingress.kubernetes.io/proxy-read-timeout"])).toBeGreaterThanOrEqual(60);
    expect(Number(a["nginx.ingress.kubernetes.io/proxy-send-timeout"])).toBeGreaterThanOrEqual(60);
    expect(Number.parseInt(a["nginx.ingress.kubernetes.io/proxy-body-size"], 10)).toBeGreaterThanOrEqual(21); // MiB
    const gw = mainContainer(get(objs, "Deployment", "gateway"));
    const target = svc.spec.ports.find((p: { name: string }) => p.name === "http").targetPort;
    expect(gw.ports.find((p: { name: string }) => p.name === target).containerPort).toBe(3000);
  });

  it("migrates with a Job per release running scripts/migrate.ts from the gateway image, removed after a TTL", () => {
    const jobs = objs.filter(
      (o) => o.kind === "Job" && o.metadata.labels?.["app.kubernetes.io/name"] === "kikitori-migrate",
    );
    expect(jobs).toHaveLength(1);
    const job = jobs[0];
    // Named per release: the suffix is the release of the prod images (0.1.0 → -r0-1-0).
    const release = (image: string) =>
      image
        .replace(/@sha256:.*$/, "")
        .split(":")
        .at(-1)!;
    const gwTag = release(mainContainer(get(rendered.prod, "Deployment", "gateway")).image);
    expect(job.metadata.name).toBe(`kikitori-migrate-r${gwTag.replace(/\./g, "-")}`);
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    const c = job.spec.template.spec.containers[0];
    expect(c.command).toEqual(["node", "dist/migrate.js"]);
    expect(existsSync(path.join(ROOT, "scripts/migrate.ts"))).toBe(true);
    expect(c.image).toBe(mainContainer(get(objs, "Deployment", "gateway")).image);
    expect(["Never", "OnFailure"]).toContain(job.spec.template.spec.restartPolicy);
    expect(job.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(job.spec.backoffLimit).toBeGreaterThan(0);
    // With PgBouncer (transaction pooling) the migration's session advisory lock needs PostgreSQL itself.
    const pgbouncer = objs.some((o) => o.kind === "Deployment" && o.metadata.name === "pgbouncer");
    expect(secretKeysOf(c)).toEqual({
      keys: [pgbouncer ? "MIGRATE_DATABASE_URL" : "DATABASE_URL"],
      wholeSecret: false,
    });
    // The gateway no longer migrates itself.
    const initNames = get(objs, "Deployment", "gateway").spec.template.spec.initContainers.map(
      (i: { name: string }) => i.name,
    );
    expect(initNames).toEqual(["wait-for-migrations"]);
  });

  it("pins every image: app images to a release (dev: the dev tag), others to a version, never latest", () => {
    for (const d of appDeployments) {
      const tag = mainContainer(d)
        .image.replace(/@sha256:[a-f0-9]{64}$/, "")
        .split(":")
        .at(-1);
      if (overlay === "prod" || overlay === "prod-gpu") expect(tag).toMatch(/^\d+\.\d+\.\d+$/);
      else expect(tag).toBe("dev");
    }
    for (const p of pods) {
      for (const c of podContainers(p)) {
        const ref = c.image.replace(/@sha256:[a-f0-9]{64}$/, "");
        const tag = ref.slice(ref.lastIndexOf("/") + 1).split(":")[1];
        const pinned =
          overlay === "prod" || overlay === "prod-gpu" || !c.image.startsWith("kikitori/") ? /\d/ : /^dev$/;
        expect({ image: c.image, tag: tag ?? "(none)" }).toEqual({
          image: c.image,
          tag: expect.stringMatching(pinned),
        });
        expect(c.image).not.toMatch(/:latest/);
      }
    }
  });

  it("denies ingress by default and admits each service's callers on its ports only", () => {
    const policies = objs.filter((o) => o.kind === "NetworkPolicy");
    const deny = policies.find((p) => JSON.stringify(p.spec.podSelector) === "{}");
    expect(deny?.spec.policyTypes).toEqual(["Ingress"]);
    expect(deny?.spec.ingress ?? []).toEqual([]);
    const allowed = (app: string) =>
      policies
        .filter((p) => p.spec.podSelector.matchLabels?.["app.kubernetes.io/name"] === app)
        .flatMap((p) => p.spec.ingress ?? []);
    // A NetworkPolicy for every Deployment.
    for (const d of deployments) {
      const name = d.spec.template.metadata.labels["app.kubernetes.io/name"];
      const covered =
        allowed(name).length > 0 ||
        policies.some((p) =>
          (p.spec.podSelector.matchExpressions ?? []).some((e: { values: string[] }) => e.values.includes(name)),
        );
      expect({ deployment: name, policy: covered }).toEqual({ deployment: name, policy: true });
    }
    const ports = (rules: any[]) => rules.flatMap((r) => r.ports.map((p: { port: number }) => p.port)).sort();
    const fromNs = (rules: any[], ns: string) =>
      rules.filter((r) =>
        r.from.some((f: any) => f.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] === ns),
      );
    const fromPod = (rules: any[], app: string) =>
      rules.filter((r) => r.from.some((f: any) => f.podSelector?.matchLabels?.["app.kubernetes.io/name"] === app));
    const gw = allowed("gateway");
    // The entry's namespace is the overlay's parameter: ingress-nginx with its component, else the Gateway's.
    const entryNs = objs.some((o) => o.kind === "Ingress") ? "ingress-nginx" : "gateway-system";
    expect(ports(fromNs(gw, entryNs))).toEqual([3000]);
    expect(ports(fromNs(gw, "monitoring"))).toEqual([3100]);
    expect(ports(gw)).toEqual([3000, 3100]);
    const billing = allowed("billing");
    expect(ports(fromPod(billing, "gateway"))).toEqual([3103]);
    expect(ports(fromNs(billing, "monitoring"))).toEqual([3103]);
    expect(fromNs(billing, entryNs)).toEqual([]);
    for (const w of ["transcription-worker", "text-worker"] as const) {
      expect(ports(allowed(w))).toEqual([OPS_PORT[w]]);
      expect(ports(fromNs(allowed(w), "monitoring"))).toEqual([OPS_PORT[w]]);
    }
    if (objs.some((o) => o.kind === "Deployment" && o.metadata.name === "speech")) {
      const speech = allowed("speech");
      expect(ports(speech)).toEqual([8000]);
      expect(ports(fromPod(speech, "transcription-worker"))).toEqual([8000]);
    }
    // Backing services in the namespace: reachable by the services, KEDA and nothing else.
    const backing = policies.find((p) => p.metadata.name === "backing-services")!;
    const sources = backing.spec.ingress[0].from;
    expect(sources[0].podSelector.matchExpressions[0].values).toEqual(
      expect.arrayContaining([...APPS, "kikitori-migrate"]),
    );
    expect(sources[1].namespaceSelector.matchLabels).toEqual({ "kubernetes.io/metadata.name": "keda" });
  });

  it("serves metrics only on the ops ports, which the gateway's Service names apart from http", () => {
    const svc = get(objs, "Service", "gateway");
    expect(svc.spec.ports.map((p: { name: string; port: number }) => [p.name, p.port])).toEqual([
      ["http", 80],
      ["ops", 3100],
    ]);
  });
});

describe("secrets", () => {
  it("prod gets kikitori-secrets from secrets.env (generator), dev ships throw-away values, no overlay shares them", () => {
    const prod = secretOf(rendered.prod);
    expect(prod).toEqual(parseKustomizeEnvFile(SECRETS_ENV));
    const dev = secretOf(rendered.dev);
    const devValues = new Set(Object.values(dev).filter((v) => v.length > 12));
    expect(Object.entries(prod).filter(([, v]) => devValues.has(v))).toEqual([]);
    expect(secretOf(rendered["prod-gpu"])).toEqual(prod);
  });

  it("the example secrets.env is all placeholders, and every service refuses to start with it", () => {
    const example = parseKustomizeEnvFile(SECRETS_EXAMPLE);
    for (const k of ["DATABASE_URL", "S3_SECRET_KEY", "JWT_SECRET", "REDIS_URL"])
      expect(isPlaceholderSecret(example[k])).toBe(true);
    const objs = rendered.prod;
    for (const name of APPS) {
      const env = { ...configOf(objs), ...envOf(mainContainer(get(objs, "Deployment", name)), example) };
      expect(() => parseConfig(name, SCHEMAS[name] as never, env)).toThrow(/placeholder/);
    }
  });

  it("takes real cards in prod: stripe, with billing refusing the test-card provider there", () => {
    for (const overlay of ["prod", "prod-gpu"] as const) {
      const cfg = configOf(rendered[overlay]);
      expect([cfg.NODE_ENV, cfg.PAYMENT_PROVIDER, cfg.ALLOW_TEST_PAYMENTS]).toEqual([
        "production",
        "stripe",
        undefined,
      ]);
      const env = { ...cfg, PAYMENT_PROVIDER: "local", JWT_SECRET: "x".repeat(40) };
      expect(() => parseConfig("billing", SCHEMAS.billing as never, env)).toThrow(/ALLOW_TEST_PAYMENTS/);
    }
    expect(configOf(rendered.dev)).toMatchObject({ PAYMENT_PROVIDER: "local", ALLOW_TEST_PAYMENTS: "true" });
  });

  it("names REDIS_ADDRESS the host:port of REDIS_URL (KEDA and the services reach the same Redis)", () => {
    for (const overlay of ["dev", "prod"] as const) {
      const secret = secretOf(rendered[overlay]);
      const url = new URL(secret.REDIS_URL);
      expect(secret.REDIS_ADDRESS).toBe(`${url.hostname}:${url.port || 6379}`);
      // KEDA runs in its own namespace: the address must be fully qualified with ours.
      expect(secret.REDIS_ADDRESS).toMatch(
        new RegExp(
          `^[\\w-]+\\.${get(rendered[overlay], "ConfigMap", "kikitori-config").metadata.namespace}\\.svc(\\.cluster\\.local)?:\\d+$`,
        ),
      );
      expect(url.password).toBe(secret.REDIS_PASSWORD);
    }
  });
});

describe("worker autoscaling on BullMQ queue depth (KEDA)", () => {
  const objs = rendered.prod;
  const config = configOf(objs);
  const secret = secretOf(objs);
  const scaled = objs.filter((o) => o.kind === "ScaledObject");

  it("scales both workers in prod, not in dev (no KEDA there)", () => {
    expect(scaled.map((s) => s.spec.scaleTargetRef.name).sort()).toEqual(["text-worker", "transcription-worker"]);
    expect(rendered.dev.some((o) => o.kind === "ScaledObject")).toBe(false);
  });

  it.each(scaled.map((s) => [s.metadata.name, s] as const))(
    "%s watches the wait and active lists of the queues its target consumes, through REDIS_ADDRESS",
    (_name, s) => {
      const target = s.spec.scaleTargetRef.name as App;
      const d = get(objs, "Deployment", target);
      expect(d.spec.replicas).toBeUndefined(); // the HPA owns it
      expect(s.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(s.spec.maxReplicaCount).toBeGreaterThan(s.spec.minReplicaCount);
      const env = envOf(mainContainer(d), secret);
      // Jobs waiting to retry (BullMQ's `delayed` sorted set) come from Prometheus, one trigger.
      const delayed = s.spec.triggers.filter((t: any) => t.type === "prometheus");
      expect(delayed).toHaveLength(1);
      const q = /queue="([^"]+)", state="delayed"/.exec(delayed[0].metadata.query)?.[1];
      expect(CONSUMES[target]).toContain(q);
      expect(delayed[0].metadata.query).toContain(
        `namespace="${objs.find((o) => o.kind === "ConfigMap")!.metadata.namespace}"`,
      );
      const lists = s.spec.triggers
        .filter((t: any) => t.type !== "prometheus")
        .map((t: any) => {
          expect(t.type).toBe("redis");
          expect(Number(t.metadata.listLength)).toBeGreaterThan(0);
          expect(t.metadata.address).toBeUndefined();
          expect(t.metadata.addressFromEnv).toBe("REDIS_ADDRESS");
          expect(env.REDIS_ADDRESS).toBe(secret.REDIS_ADDRESS);
          const auth = get(objs, "TriggerAuthentication", t.authenticationRef.name);
          for (const ref of auth.spec.secretTargetRef) {
            expect(ref.name).toBe("kikitori-secrets");
            expect(Object.keys(secret)).toContain(ref.key);
          }
          return t.metadata.listName;
        });
      // BullMQ's waiting and running jobs: <prefix>:<queue>:wait|active (tests/infra/queue-keys.int.test.ts).
      const queues = CONSUMES[target]!;
      const allowedLists = queues.flatMap((q) => [
        `${config.REDIS_PREFIX}:${q}:wait`,
        `${config.REDIS_PREFIX}:${q}:active`,
      ]);
      expect(lists.filter((l: string) => !allowedLists.includes(l))).toEqual([]);
      for (const q of queues) expect(lists).toContain(`${config.REDIS_PREFIX}:${q}:wait`);
    },
  );

  it.each([
    ...scaled.map((s) => ["prod", s] as const),
    ...rendered["prod-gpu"].filter((o) => o.kind === "ScaledObject").map((s) => ["prod-gpu", s] as const),
  ])(
    "%s: %#: scales down one pod per period after a stabilization window, and falls back when Redis is unreadable",
    (_o, s) => {
      const down = s.spec.advanced?.horizontalPodAutoscalerConfig?.behavior?.scaleDown;
      expect(down?.stabilizationWindowSeconds).toBeGreaterThanOrEqual(60);
      expect(down?.policies).toEqual([{ type: "Pods", value: 1, periodSeconds: expect.any(Number) }]);
      // A period at least as long as the pod's grace period: one pod drains before the next is picked.
      const grace = get(rendered.prod, "Deployment", s.spec.scaleTargetRef.name).spec.template.spec
        .terminationGracePeriodSeconds;
      expect(down.policies[0].periodSeconds).toBeGreaterThanOrEqual(Math.min(grace, 120));
      expect(s.spec.fallback?.failureThreshold).toBeGreaterThanOrEqual(1);
      expect(s.spec.fallback?.replicas).toBeGreaterThanOrEqual(s.spec.minReplicaCount);
      expect(s.spec.fallback?.replicas).toBeLessThanOrEqual(s.spec.maxReplicaCount);
    },
  );

  it("offers the same without KEDA: External-metric HPAs on one queue-depth series each, same behavior", () => {
    const objs = rendered["test-components"];
    const hpas = objs.filter((o) => o.kind === "HorizontalPodAutoscaler");
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(["text-worker", "transcription-worker"]);
    for (const h of hpas) {
      const target = h.spec.scaleTargetRef.name as App;
      expect(get(objs, "Deployment", target).spec.replicas).toBeUndefined();
      const keda = get(rendered.prod, "ScaledObject", target);
      expect(h.spec.behavior.scaleDown).toEqual(keda.spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown);
      expect(h.spec.maxReplicas).toBe(keda.spec.maxReplicaCount);
      for (const m of h.spec.metrics) {
        expect(m.type).toBe("External");
        expect(m.external.metric.name).toBe("kikitori_queue_depth");
        expect(CONSUMES[target]).toContain(m.external.metric.selector.matchLabels.queue);
        expect(["waiting", "active"]).toContain(m.external.metric.selector.matchLabels.state);
        expect(m.external.target.type).toBe("AverageValue");
      }
    }
    // The adapter rule that collapses the per-replica series is documented with the component.
    const doc = readFileSync(path.join(SOURCE_K8S, "components/autoscaling-hpa/kustomization.yaml"), "utf8");
    expect(doc).toMatch(/max by \(namespace, queue, state\)/);
  });

  it("offers PodMonitors for the Prometheus Operator, one per service on its ops port", () => {
    const monitors = rendered["test-components"].filter(
      (o) => o.kind === "PodMonitor" && !o.metadata.name.endsWith("-exporter"),
    );
    expect(monitors.map((m) => m.metadata.name).sort()).toEqual([...APPS].sort());
    for (const m of monitors) {
      const d = get(rendered["test-components"], "Deployment", m.metadata.name);
      expect(m.spec.selector.matchLabels).toEqual(d.spec.template.metadata.labels);
      expect(m.spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: "ops", path: "/metrics" })]);
    }
  });
});

describe("GPU speech servers (components/gpu-speech)", () => {
  const objs = rendered["prod-gpu"];
  const config = configOf(objs);
  const secret = secretOf(objs);

  it("points the transcription workers at an OpenAI-compatible server in the cluster, on a GPU", () => {
    const c = mainContainer(get(objs, "Deployment", "transcription-worker"));
    const env = envOf(c, secret);
    expect(env.TRANSCRIPTION_ENGINE).toBe("openai");
    const url = new URL(env.OPENAI_BASE_URL);
    const svc = get(objs, "Service", url.hostname);
    expect(svc.spec.ports.map((p: { port: number }) => p.port)).toContain(Number(url.port));
    const speech = mainContainer(get(objs, "Deployment", url.hostname));
    expect(speech.resources.limits["nvidia.com/gpu"]).toBe("1");
    const cfg = parseWith(transcriptionWorkerEnv, { ...config, ...env });
    expect(cfg.success).toBe(true);
  });

  it("survives a restart: ≥ 2 replicas, a budget keeping one, models on a volume, image pinned by digest", () => {
    const d = get(objs, "Deployment", "speech");
    expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    const pdb = get(objs, "PodDisruptionBudget", "speech");
    expect(pdb.spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(pdb.spec.minAvailable).toBeLessThan(d.spec.replicas);
    const pod = d.spec.template.spec;
    const models = pod.volumes.find((v: { name: string }) => v.name === "models");
    expect(models.persistentVolumeClaim?.claimName).toBeDefined();
    get(objs, "PersistentVolumeClaim", models.persistentVolumeClaim.claimName);
    expect(pod.initContainers.map((i: { name: string }) => i.name)).toContain("models");
    expect(envOf(mainContainer(d)).HF_HUB_OFFLINE).toBe("1");
    for (const c of podContainers(d)) expect(c.image).toMatch(/:[\w.-]*\d[\w.-]*@sha256:[a-f0-9]{64}$/);
  });

  it("retries chunks long enough to outlive a speech-server restart (minutes), and each chunk call ends before shutdown", () => {
    const cfg = serviceConfig(objs, "transcription-worker");
    const attempts = Number(cfg.CHUNK_ATTEMPTS);
    const backoff = Number(cfg.CHUNK_BACKOFF_MS);
    // BullMQ's exponential backoff: delay × 2^(attempt-1) before each retry.
    const retryWindowMs = Array.from({ length: attempts - 1 }, (_, i) => backoff * 2 ** i).reduce((a, b) => a + b, 0);
    expect(retryWindowMs).toBeGreaterThanOrEqual(5 * 60_000);
    // The defaults alone (no GPU overlay) outlast a few minutes too.
    const defaults = parseWith(transcriptionWorkerEnv, {}) as { data?: Record<string, number> };
    const d = defaults.data!;
    const defaultWindow = Array.from({ length: d.CHUNK_ATTEMPTS - 1 }, (_, i) => d.CHUNK_BACKOFF_MS * 2 ** i).reduce(
      (a, b) => a + b,
      0,
    );
    expect(defaultWindow).toBeGreaterThanOrEqual(3 * 60_000);
  });

  it("caps workers × chunk concurrency to what the speech servers take at once", () => {
    const speech = get(objs, "Deployment", "speech");
    const perReplica = Number(speech.spec.template.metadata.annotations["kikitori.io/max-concurrent-requests"]);
    const capacity = speech.spec.replicas * perReplica;
    const workers = get(objs, "ScaledObject", "transcription-worker").spec.maxReplicaCount;
    const chunks = Number(
      envOf(mainContainer(get(objs, "Deployment", "transcription-worker")), secret).CHUNK_CONCURRENCY,
    );
    expect({ inFlight: workers * chunks, capacity, fits: workers * chunks <= capacity }).toEqual({
      inFlight: workers * chunks,
      capacity,
      fits: true,
    });
    const active = get(objs, "ScaledObject", "transcription-worker").spec.triggers.find((t: any) =>
      t.metadata.listName.endsWith(":transcription-chunk:active"),
    );
    expect(Number(active.metadata.listLength)).toBe(chunks);
  });

  it("leaves the text worker's engine settings alone", () => {
    const c = mainContainer(get(objs, "Deployment", "text-worker"));
    expect(envOf(c, secret).OPENAI_BASE_URL).toBeUndefined();
    expect(config.OPENAI_BASE_URL).toBeUndefined();
  });
});

describe('connection budget (README, "Connection budget")', () => {
  it("documents every service's database pool against max_connections, with PgBouncer in prod", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Connection budget"));
    expect(section.length).toBeGreaterThan(100);
    for (const name of APPS) expect(section).toContain(name);
    expect(section).toMatch(/max_connections/);
    expect(section).toMatch(/PgBouncer/);
    const prod = rendered.prod;
    expect(secretOf(prod).DATABASE_URL).toMatch(/@pgbouncer:6432\//);
    get(prod, "Deployment", "pgbouncer");
  });
});
