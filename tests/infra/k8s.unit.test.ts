// The Kubernetes manifests (k8s/): every overlay is rendered (tests/infra/kustomize.ts, checked against
// `kubectl kustomize` where kubectl exists), every object is validated against its API schema
// (kubernetes-models, @kubernetes-models/keda), and the objects are cross-checked with each other and
// with the services' own config schemas. No cluster is needed.
import { existsSync } from "node:fs";
import path from "node:path";
import { QUEUES } from "@kikitori/shared";
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { Deployment } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Secret, Service } from "kubernetes-models/v1";
import { billingEnv } from "../../services/billing/src/config.ts";
import { correctionWorkerEnv } from "../../services/correction-worker/src/config.ts";
import { gatewayEnv } from "../../services/gateway/src/config.ts";
import { transcriptionWorkerEnv } from "../../services/transcription-worker/src/config.ts";
import {
  type K8sObject,
  kubectlKustomize,
  podContainers,
  readKustomization,
  renderKustomization,
} from "./kustomize.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const K8S = path.join(ROOT, "k8s");
const APPS = ["gateway", "transcription-worker", "correction-worker", "billing"] as const;
type App = (typeof APPS)[number];

const SCHEMAS: Record<App, unknown> = {
  gateway: gatewayEnv,
  "transcription-worker": transcriptionWorkerEnv,
  "correction-worker": correctionWorkerEnv,
  billing: billingEnv,
};
/** Queues each worker consumes (what its KEDA triggers may watch). */
const CONSUMES: Partial<Record<App, string[]>> = {
  "transcription-worker": [QUEUES.transcription, QUEUES.transcriptionChunk],
  "correction-worker": [QUEUES.correction, QUEUES.text],
};

type ModelClass = new (data: any) => { validate(): void };
const MODELS: Record<string, ModelClass> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "batch/v1/Job": Job,
  "networking.k8s.io/v1/Ingress": Ingress,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
  "keda.sh/v1alpha1/TriggerAuthentication": TriggerAuthentication,
};

const OVERLAYS = ["dev", "prod", "prod-gpu"] as const;
const rendered = Object.fromEntries([
  ...OVERLAYS.map((o) => [o, renderKustomization(path.join(K8S, "overlays", o))] as const),
  ["base", renderKustomization(path.join(K8S, "base"))] as const,
]) as Record<(typeof OVERLAYS)[number] | "base", K8sObject[]>;

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
const envOf = (c: { env?: Array<{ name: string; value?: string }> }) =>
  Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? ""])) as Record<string, string>;

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
      "components/gpu-speech",
    ]) {
      expect({ d, kind: readKustomization(path.join(K8S, d)).kind }).toEqual({
        d,
        kind: d.startsWith("components") ? "Component" : "Kustomization",
      });
    }
  });

  const kubectl = kubectlKustomize(path.join(K8S, "base")) !== null;
  (kubectl ? it.each(OVERLAYS) : it.skip.each(OVERLAYS))("%s renders the same as `kubectl kustomize`", (overlay) => {
    const sort = (objs: K8sObject[]) =>
      [...objs].sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
    const theirs = kubectlKustomize(path.join(K8S, "overlays", overlay))!;
    expect(sort(rendered[overlay])).toEqual(sort(theirs));
  });
});

describe.each(OVERLAYS)("overlay %s", (overlay) => {
  const objs = rendered[overlay];
  const deployments = objs.filter((o) => o.kind === "Deployment");
  const appDeployments = deployments.filter((d) => (APPS as readonly string[]).includes(d.metadata.name));
  const config = get(objs, "ConfigMap", "kikitori-config").data as Record<string, string>;
  const secret = get(objs, "Secret", "kikitori-secrets").stringData as Record<string, string>;
  const namespace = overlay === "dev" ? "kikitori-dev" : "kikitori";

  it.each(objs.map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
    "%s is valid against its API schema",
    (_n, o) => {
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect({ kind: `${o.apiVersion}/${o.kind}`, known: Boolean(Model) }).toEqual({
        kind: `${o.apiVersion}/${o.kind}`,
        known: true,
      });
      expect(() => new Model(o).validate()).not.toThrow();
      expect(o.metadata.namespace).toBe(namespace);
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
    }
    for (const kind of ["Ingress", "ConfigMap", "Secret", "Job"]) expect(objs.some((o) => o.kind === kind)).toBe(true);
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    "Deployment %s: probes on /healthz and /readyz, requests and limits, non-root, no privilege escalation",
    (_name, d) => {
      const pod = d.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      const c = mainContainer(d);
      const portNames = (c.ports ?? []).map((p: { name: string }) => p.name);
      const speech = d.metadata.name === "speech"; // a third-party image: its own health path
      expect(c.livenessProbe.httpGet.path).toBe(speech ? "/health" : "/healthz");
      expect(c.readinessProbe.httpGet.path).toBe(speech ? "/health" : "/readyz");
      expect(portNames).toContain(c.livenessProbe.httpGet.port);
      expect(portNames).toContain(c.readinessProbe.httpGet.port);
      for (const cont of podContainers(d) as Array<Record<string, any>>) {
        expect({
          c: cont.name,
          requests: Boolean(cont.resources?.requests?.cpu && cont.resources?.requests?.memory),
        }).toEqual({ c: cont.name, requests: true });
        expect({
          c: cont.name,
          limits: Boolean(cont.resources?.limits?.cpu && cont.resources?.limits?.memory),
        }).toEqual({ c: cont.name, limits: true });
        expect(cont.securityContext?.runAsNonRoot).toBe(true);
        expect(cont.securityContext?.allowPrivilegeEscalation).toBe(false);
        expect(cont.securityContext?.capabilities?.drop).toEqual(["ALL"]);
      }
    },
  );

  it.each(appDeployments.map((d) => [d.metadata.name, d] as const))(
    "Deployment %s: waits for the migration, runs its own image read-only, and shuts down within its grace period",
    (name, d) => {
      const pod = d.spec.template.spec;
      const c = mainContainer(d);
      expect(c.image).toMatch(new RegExp(`(^|/)kikitori/${name}:[\\w.-]+$`));
      expect(existsSync(path.join(ROOT, `infra/${name}.Dockerfile`))).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toContain("/tmp");

      const init = pod.initContainers.find((i: { name: string }) => i.name === "wait-for-migrations");
      expect(init.image).toBe(c.image);
      expect(init.command).toEqual(["node", "--import", "tsx", "infra/wait-for-migrations.ts"]);
      expect(existsSync(path.join(ROOT, "infra/wait-for-migrations.ts"))).toBe(true);
      expect(init.envFrom).toEqual([{ secretRef: { name: "kikitori-secrets" } }]);
      expect(secret.DATABASE_URL).toMatch(/^postgres(ql)?:\/\//);

      const shutdownMs = Number(envOf(c).SHUTDOWN_TIMEOUT_MS ?? config.SHUTDOWN_TIMEOUT_MS ?? 30_000);
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdownMs);
      expect(c.envFrom).toEqual([
        { configMapRef: { name: "kikitori-config" } },
        { secretRef: { name: "kikitori-secrets" } },
      ]);
      if (name !== "gateway") {
        expect(d.spec.template.metadata.annotations["prometheus.io/scrape"]).toBe("true");
        expect(c.ports.map((p: { containerPort: number }) => String(p.containerPort))).toContain(
          d.spec.template.metadata.annotations["prometheus.io/port"],
        );
      }
    },
  );

  it.each(APPS)(
    "the %s container's environment (ConfigMap + Secret + env) is a valid config of that service",
    (name) => {
      const d = get(objs, "Deployment", name);
      const own = envOf(mainContainer(d));
      const env = { ...config, ...secret, ...own };
      const r = parseWith(SCHEMAS[name], env);
      expect(r.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? []).toEqual([]);
      // No typos: every variable the Deployment sets itself is one its service reads.
      const known = new Set(keysOf(SCHEMAS[name]));
      expect(Object.keys(own).filter((k) => !known.has(k))).toEqual([]);
    },
  );

  it("only puts variables some service reads into the ConfigMap and Secret", () => {
    const known = new Set(APPS.flatMap((a) => keysOf(SCHEMAS[a])));
    known.add("REDIS_PASSWORD"); // read by KEDA's redis scaler (components/autoscaling-keda)
    expect([...Object.keys(config), ...Object.keys(secret)].filter((k) => !known.has(k))).toEqual([]);
  });

  it("keeps the transcription worker's chunk concurrency within its CPU limit", () => {
    const c = mainContainer(get(objs, "Deployment", "transcription-worker"));
    const n = Number(envOf(c).CHUNK_CONCURRENCY);
    expect(n).toBeGreaterThanOrEqual(1);
    if ((envOf(c).TRANSCRIPTION_ENGINE ?? config.TRANSCRIPTION_ENGINE) === "pocketsphinx") {
      expect(n).toBeLessThanOrEqual(cores(c.resources.limits.cpu));
    }
  });

  it("fronts the gateway with an Ingress that passes /ws and uploads", () => {
    const ing = get(objs, "Ingress", "gateway");
    const paths = ing.spec.rules.flatMap((r: any) => r.http.paths);
    const ws = paths.find((p: any) => p.path === "/ws");
    expect(ws.backend.service.name).toBe("gateway");
    const svc = get(objs, "Service", "gateway");
    for (const p of paths) {
      expect(p.backend.service.name).toBe("gateway");
      expect(svc.spec.ports.map((x: { name: string }) => x.name)).toContain(p.backend.service.port.name);
    }
    const a = ing.metadata.annotations ?? {};
    expect(Number(a["nginx.ingress.kubernetes.io/proxy-read-timeout"])).toBeGreaterThanOrEqual(60);
    expect(Number(a["nginx.ingress.kubernetes.io/proxy-send-timeout"])).toBeGreaterThanOrEqual(60);
    expect(Number.parseInt(a["nginx.ingress.kubernetes.io/proxy-body-size"], 10)).toBeGreaterThanOrEqual(21); // MiB
    const gw = mainContainer(get(objs, "Deployment", "gateway"));
    const target = svc.spec.ports.find((p: { name: string }) => p.name === "http").targetPort;
    expect(gw.ports.map((p: { name: string }) => p.name)).toContain(target);
  });

  it("migrates with a Job running scripts/migrate.ts from the gateway image", () => {
    const job = get(objs, "Job", "kikitori-migrate");
    const c = job.spec.template.spec.containers[0];
    expect(c.command).toEqual(["node", "--import", "tsx", "scripts/migrate.ts"]);
    expect(existsSync(path.join(ROOT, "scripts/migrate.ts"))).toBe(true);
    expect(c.image).toBe(mainContainer(get(objs, "Deployment", "gateway")).image);
    expect(["Never", "OnFailure"]).toContain(job.spec.template.spec.restartPolicy);
    expect(job.spec.backoffLimit).toBeGreaterThan(0);
    // The gateway no longer migrates itself.
    const initNames = get(objs, "Deployment", "gateway").spec.template.spec.initContainers.map(
      (i: { name: string }) => i.name,
    );
    expect(initNames).toEqual(["wait-for-migrations"]);
  });

  it("pins image tags outside dev", () => {
    for (const d of appDeployments) {
      const tag = mainContainer(d).image.split(":").at(-1);
      if (overlay === "dev") expect(tag).toBe("dev");
      else expect(tag).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });
});

describe("worker autoscaling on BullMQ queue depth (KEDA)", () => {
  const objs = rendered.prod;
  const config = get(objs, "ConfigMap", "kikitori-config").data as Record<string, string>;
  const secret = get(objs, "Secret", "kikitori-secrets").stringData as Record<string, string>;
  const scaled = objs.filter((o) => o.kind === "ScaledObject");

  it("scales both workers in prod, not in dev (no KEDA there)", () => {
    expect(scaled.map((s) => s.spec.scaleTargetRef.name).sort()).toEqual(["correction-worker", "transcription-worker"]);
    expect(rendered.dev.some((o) => o.kind === "ScaledObject")).toBe(false);
  });

  it.each(scaled.map((s) => [s.metadata.name, s] as const))(
    "%s watches the wait lists of the queues its target consumes",
    (_name, s) => {
      const target = s.spec.scaleTargetRef.name as App;
      const d = get(objs, "Deployment", target);
      expect(d.spec.replicas).toBeUndefined(); // the HPA owns it
      expect(s.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(s.spec.maxReplicaCount).toBeGreaterThan(s.spec.minReplicaCount);
      const lists = s.spec.triggers.map((t: any) => {
        expect(t.type).toBe("redis");
        expect(Number(t.metadata.listLength)).toBeGreaterThan(0);
        // KEDA runs in its own namespace: the address must name ours.
        expect(t.metadata.address).toMatch(
          new RegExp(`^[\\w-]+\\.${objs[0].metadata.namespace}\\.svc(\\.cluster\\.local)?:\\d+$`),
        );
        const auth = get(objs, "TriggerAuthentication", t.authenticationRef.name);
        for (const ref of auth.spec.secretTargetRef) {
          expect(ref.name).toBe("kikitori-secrets");
          expect(Object.keys(secret)).toContain(ref.key);
        }
        return t.metadata.listName;
      });
      // BullMQ's waiting jobs: the list <prefix>:<queue>:wait (tests/infra/queue-keys.int.test.ts).
      expect(lists.sort()).toEqual(CONSUMES[target]!.map((q) => `${config.REDIS_PREFIX}:${q}:wait`).sort());
    },
  );
});

describe("GPU speech servers (components/gpu-speech)", () => {
  const objs = rendered["prod-gpu"];
  const config = get(objs, "ConfigMap", "kikitori-config").data as Record<string, string>;
  const secret = get(objs, "Secret", "kikitori-secrets").stringData as Record<string, string>;

  it("points the transcription workers at an OpenAI-compatible server in the cluster, on a GPU", () => {
    const c = mainContainer(get(objs, "Deployment", "transcription-worker"));
    const env = envOf(c);
    expect(env.TRANSCRIPTION_ENGINE).toBe("openai");
    const url = new URL(env.OPENAI_BASE_URL);
    const svc = get(objs, "Service", url.hostname);
    expect(svc.spec.ports.map((p: { port: number }) => p.port)).toContain(Number(url.port));
    const speech = mainContainer(get(objs, "Deployment", url.hostname));
    expect(speech.resources.limits["nvidia.com/gpu"]).toBe("1");
    const cfg = parseWith(transcriptionWorkerEnv, { ...config, ...secret, ...env });
    expect(cfg.success).toBe(true);
  });

  it("leaves the correction worker's engine settings alone", () => {
    const c = mainContainer(get(objs, "Deployment", "correction-worker"));
    expect(envOf(c).OPENAI_BASE_URL).toBeUndefined();
    expect(config.OPENAI_BASE_URL).toBeUndefined();
  });
});
