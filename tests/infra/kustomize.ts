// A small kustomize renderer for the tests: exactly the features k8s/ uses (resources, components,
// namespace, nameSuffix, labels, images, replicas, JSON 6902 patches with a target, secretGenerator from env
// files with a fixed name), and a loud error for any
// other field, so a manifest change that needs more is noticed here. When `kubectl` is installed the
// tests also compare this renderer's output with `kubectl kustomize`.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
};

type Target = { kind?: string; name?: string };
type Kustomization = {
  apiVersion: string;
  kind: "Kustomization" | "Component";
  namespace?: string;
  nameSuffix?: string;
  resources?: string[];
  components?: string[];
  labels?: Array<{ pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }>;
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
  replicas?: Array<{ name: string; count: number }>;
  patches?: Array<{ target?: Target; patch?: string; path?: string }>;
  secretGenerator?: SecretGenerator[];
};
type SecretGenerator = {
  name: string;
  type?: string;
  envs?: string[];
  options?: { disableNameSuffixHash?: boolean };
  [key: string]: unknown;
};

const KNOWN_FIELDS = new Set([
  "apiVersion",
  "kind",
  "namespace",
  "nameSuffix",
  "resources",
  "components",
  "labels",
  "images",
  "replicas",
  "patches",
  "secretGenerator",
]);

/** Kinds that are not namespaced (kustomize leaves their namespace alone). */
const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"]);

export function readYamlObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join("; ")}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

export function readKustomization(dir: string): Kustomization {
  const file = path.join(dir, "kustomization.yaml");
  if (!existsSync(file)) throw new Error(`no kustomization.yaml in ${dir}`);
  const k = parse(readFileSync(file, "utf8")) as Kustomization;
  const unknown = Object.keys(k).filter((f) => !KNOWN_FIELDS.has(f));
  if (unknown.length) throw new Error(`${file}: fields this renderer does not support: ${unknown.join(", ")}`);
  return k;
}

/**
 * Renders a kustomization directory like `kubectl kustomize <dir>` (for the features listed above), in
 * kustomize's order: resources, then each component (its resources, then its transformers over
 * everything so far), then the kustomization's own transformers (patches, namespace, labels, replicas,
 * images).
 */
export function renderKustomization(dir: string): K8sObject[] {
  const k = readKustomization(dir);
  if (k.kind !== "Kustomization") throw new Error(`${dir} is a ${k.kind}, not a Kustomization`);
  let objects: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = path.resolve(dir, r);
    objects.push(...(statSync(p).isDirectory() ? renderKustomization(p) : readYamlObjects(p)));
  }
  for (const g of k.secretGenerator ?? []) objects.push(generateSecret(dir, g));
  for (const c of k.components ?? []) {
    const cdir = path.resolve(dir, c);
    const comp = readKustomization(cdir);
    if (comp.kind !== "Component") throw new Error(`${cdir} is not a Component`);
    for (const r of comp.resources ?? []) objects.push(...readYamlObjects(path.resolve(cdir, r)));
    objects = applyTransforms(cdir, comp, objects);
  }
  return applyTransforms(dir, k, objects);
}

function applyTransforms(dir: string, k: Kustomization, input: K8sObject[]): K8sObject[] {
  const objects = input.map((o) => structuredClone(o));
  for (const p of k.patches ?? []) {
    if (p.path) throw new Error(`${dir}: patches from files are not supported here`);
    const ops = parse(p.patch ?? "");
    if (!Array.isArray(ops)) {
      if (ops && typeof ops === "object" && (ops as Record<string, unknown>).$patch === "delete") {
        const o = ops as K8sObject;
        const i = objects.findIndex((x) => x.kind === o.kind && x.metadata.name === o.metadata?.name);
        if (i >= 0) objects.splice(i, 1);
        continue;
      }
      throw new Error(`${dir}: only JSON 6902 patches (a YAML list of operations) are supported`);
    }
    const matches = objects.filter((o) => matchesTarget(o, p.target ?? {}));
    if (matches.length === 0) throw new Error(`${dir}: patch target ${JSON.stringify(p.target)} matches nothing`);
    for (const o of matches) applyJsonPatch(o, ops as JsonPatchOp[], `${dir} → ${o.kind}/${o.metadata.name}`);
  }
  for (const r of k.replicas ?? []) {
    const found = objects.filter((o) => o.metadata.name === r.name && o.spec && "template" in o.spec);
    if (!found.length) throw new Error(`${dir}: replicas for unknown workload ${r.name}`);
    for (const o of found) o.spec.replicas = r.count;
  }
  for (const o of objects) {
    if (k.nameSuffix) o.metadata.name += k.nameSuffix;
    if (k.namespace && !CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    for (const l of k.labels ?? []) {
      if (l.includeSelectors || l.includeTemplates)
        throw new Error(`${dir}: labels into selectors/templates unsupported`);
      o.metadata.labels = { ...o.metadata.labels, ...l.pairs };
    }
    for (const img of k.images ?? []) {
      for (const c of podContainers(o)) {
        const [name, tag] = splitImage(c.image);
        if (name !== img.name) continue;
        c.image = `${img.newName ?? name}:${img.newTag ?? tag ?? "latest"}${img.digest ? `@${img.digest}` : ""}`;
      }
    }
  }
  return objects;
}

/** KEY=VALUE lines of a kustomize env file (no quotes removed, `#` comments and blank lines skipped). */
export function parseKustomizeEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`bad env line: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** A secretGenerator with `envs` files and a fixed name (no hash suffix), as kustomize renders it. */
function generateSecret(dir: string, g: SecretGenerator): K8sObject {
  const unknown = Object.keys(g).filter((f) => !["name", "type", "envs", "options"].includes(f));
  if (unknown.length) throw new Error(`${dir}: secretGenerator fields not supported here: ${unknown.join(", ")}`);
  if (!g.options?.disableNameSuffixHash) throw new Error(`${dir}: secretGenerator needs disableNameSuffixHash here`);
  const data: Record<string, string> = {};
  for (const f of g.envs ?? []) {
    for (const [key, value] of Object.entries(parseKustomizeEnvFile(readFileSync(path.resolve(dir, f), "utf8")))) {
      data[key] = Buffer.from(value).toString("base64");
    }
  }
  return { apiVersion: "v1", kind: "Secret", metadata: { name: g.name }, type: g.type ?? "Opaque", data };
}

/** A Secret's values, decoded (`data` is base64, `stringData` plain). */
export function secretValues(o: K8sObject): Record<string, string> {
  const out: Record<string, string> = { ...(o.stringData ?? {}) };
  for (const [k, v] of Object.entries((o.data ?? {}) as Record<string, string>)) {
    out[k] = Buffer.from(v, "base64").toString("utf8");
  }
  return out;
}

function matchesTarget(o: K8sObject, t: Target): boolean {
  if (t.kind && o.kind !== t.kind) return false;
  if (t.name && !new RegExp(`^(?:${t.name})$`).test(o.metadata.name)) return false;
  return true;
}

/** Image reference without and with its tag ("registry:5000/a/b:1.0" → ["registry:5000/a/b", "1.0"]). */
function splitImage(image: string): [string, string | undefined] {
  if (image.includes("@")) return [image.slice(0, image.indexOf("@")).replace(/:[^/:]*$/, ""), undefined];
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  return colon > slash ? [image.slice(0, colon), image.slice(colon + 1)] : [image, undefined];
}

/** Every container and init container of a workload's pod template (Deployment, Job, ...). */
export function podContainers(o: K8sObject): Array<{ name: string; image: string; [k: string]: unknown }> {
  const pod = o.spec?.template?.spec;
  if (!pod) return [];
  return [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
}

type JsonPatchOp = { op: "add" | "remove" | "replace" | "test"; path: string; value?: unknown };

function applyJsonPatch(doc: unknown, ops: JsonPatchOp[], where: string): void {
  for (const op of ops) {
    const parts = op.path
      .split("/")
      .slice(1)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = parts.pop();
    if (last === undefined) throw new Error(`${where}: bad path ${op.path}`);
    let parent: any = doc;
    for (const p of parts) {
      parent = Array.isArray(parent) ? parent[Number(p)] : parent?.[p];
      if (parent === undefined) throw new Error(`${where}: ${op.op} ${op.path}: path does not exist`);
    }
    const isArray = Array.isArray(parent);
    const index = last === "-" ? parent.length : Number(last);
    const exists = isArray ? index < parent.length : Object.hasOwn(parent, last);
    switch (op.op) {
      case "add":
        if (isArray) parent.splice(index, 0, structuredClone(op.value));
        else parent[last] = structuredClone(op.value);
        break;
      case "replace":
        if (!exists) throw new Error(`${where}: replace ${op.path}: nothing there`);
        if (isArray) parent[index] = structuredClone(op.value);
        else parent[last] = structuredClone(op.value);
        break;
      case "remove":
        if (!exists) throw new Error(`${where}: remove ${op.path}: nothing there`);
        if (isArray) parent.splice(index, 1);
        else delete parent[last];
        break;
      case "test": {
        const actual = isArray ? parent[index] : parent[last];
        if (JSON.stringify(actual) !== JSON.stringify(op.value)) {
          throw new Error(`${where}: test ${op.path} failed: ${JSON.stringify(actual)} ≠ ${JSON.stringify(op.value)}`);
        }
        break;
      }
      default:
        throw new Error(`${where}: unsupported op ${(op as { op: string }).op}`);
    }
  }
}

/** `kubectl kustomize <dir>` when kubectl is installed, else null. */
export function kubectlKustomize(dir: string): K8sObject[] | null {
  let out: string;
  try {
    out = execFileSync("kubectl", ["kustomize", dir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`kubectl kustomize ${dir} failed: ${(err as { stderr?: string }).stderr ?? err}`);
  }
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}
