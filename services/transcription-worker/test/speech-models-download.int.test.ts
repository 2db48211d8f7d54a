// The sherpa-onnx speech models' download from a local stand-in of the release host: the archive is
// checked against the SHA-256 the operator pins (none is published), unpacked, every file the engine
// loads is found before anything is put in place, and the unpacked Parakeet model loads and decodes.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { jest } from "@jest/globals";
import { testOnnxModels } from "../../../tests/support/onnx-models.ts";
import { type SherpaModelFiles, SherpaOfflineEngine } from "../src/engines/sherpa-offline.ts";
import { speechModelEntry, speechModelFiles } from "../src/models/catalog.ts";
import { ModelDownloadError } from "../src/models/download.ts";
import { pullSpeechModel, speechModelReady } from "../src/models/speech-models.ts";

jest.setTimeout(120_000);

const NAME = "parakeet-tdt-0.6b-v3-int8" as const;
const DIR = speechModelEntry(NAME).dir;

let server: http.Server;
let baseUrl: string;
let served: Record<string, Buffer> = {};
let requests: string[] = [];
let work: string;
let modelsDir: string;

/** A .tar.bz2 with the generated transducer under the release's directory and file names (minus `skip`). */
function archive(skip?: string): Buffer {
  const src = testOnnxModels().nemoTransducer;
  const root = mkdtempSync(path.join(work, "pack-"));
  mkdirSync(path.join(root, DIR));
  const names = {
    "encoder.onnx": "encoder.int8.onnx",
    "decoder.onnx": "decoder.int8.onnx",
    "joiner.onnx": "joiner.int8.onnx",
    "tokens.txt": "tokens.txt",
  };
  for (const [from, to] of Object.entries(names))
    if (to !== skip) copyFileSync(path.join(src, from), path.join(root, DIR, to));
  const out = path.join(root, "a.tar.bz2");
  execFileSync("tar", ["-cjf", out, "-C", root, DIR]);
  return readFileSync(out);
}
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "kikitori-speech-models-"));
  server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    const body = served[path.basename(req.url ?? "")];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/asr-models`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  requests = [];
  served = {};
  modelsDir = mkdtempSync(path.join(work, "models-"));
});

it("refuses without a SHA-256 (none is published), naming the option, before any request", async () => {
  served[`${DIR}.tar.bz2`] = archive();
  const err = await pullSpeechModel({ modelsDir, name: NAME, baseUrl }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ModelDownloadError);
  expect((err as ModelDownloadError).kind).toBe("no-checksum");
  expect((err as Error).message).toContain(`npm run models -- pull ${NAME} --sha256=<hex>`);
  expect(requests).toEqual([]);
});

it("downloads, checks the archive, unpacks and checks the files, then loads and decodes the model", async () => {
  const body = archive();
  served[`${DIR}.tar.bz2`] = body;
  const got = await pullSpeechModel({ modelsDir, name: NAME, baseUrl, sha256: sha256(body), retries: 0 });
  expect(got.downloaded).toBe(true);
  expect(requests).toEqual([`/asr-models/${DIR}.tar.bz2`]);
  expect(await speechModelReady(modelsDir, NAME)).toBe(true);
  // The archive is gone; the files are in MODELS_DIR/<dir>.
  expect(existsSync(path.join(modelsDir, `${DIR}.tar.bz2`))).toBe(false);
  expect(got.files).toEqual(speechModelFiles(modelsDir, NAME));
  // Again: nothing to do, no request.
  expect((await pullSpeechModel({ modelsDir, name: NAME, baseUrl, sha256: sha256(body) })).downloaded).toBe(false);
  expect(requests).toHaveLength(1);

  const engine = new SherpaOfflineEngine({
    model: { family: "parakeet", name: NAME, files: got.files as unknown as SherpaModelFiles, languages: ["en"] },
    threads: 1,
    timeoutMs: 60_000,
  });
  try {
    await engine.check();
  } finally {
    await engine.close();
  }
});

it("refuses an archive whose SHA-256 does not match and installs nothing", async () => {
  served[`${DIR}.tar.bz2`] = archive();
  const err = await pullSpeechModel({ modelsDir, name: NAME, baseUrl, sha256: "0".repeat(64), retries: 0 }).catch(
    (e: unknown) => e,
  );
  expect((err as ModelDownloadError).kind).toBe("checksum");
  expect(existsSync(path.join(modelsDir, DIR))).toBe(false);
  expect(await speechModelReady(modelsDir, NAME)).toBe(false);
});

it("refuses an archive without one of the files the engine loads, naming it, and installs nothing", async () => {
  const body = archive("tokens.txt");
  served[`${DIR}.tar.bz2`] = body;
  await expect(pullSpeechModel({ modelsDir, name: NAME, baseUrl, sha256: sha256(body), retries: 0 })).rejects.toThrow(
    `lacks ${DIR}/tokens.txt (the tokens of ${NAME}); nothing was installed`,
  );
  expect(existsSync(path.join(modelsDir, DIR))).toBe(false);
  expect(await speechModelReady(modelsDir, NAME)).toBe(false);
});

describe("npm run models (the command line)", () => {
  const REPO = fileURLToPath(new URL("../../..", import.meta.url));
  const models = (args: string[]) =>
    promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/models.ts", ...args], {
      cwd: REPO,
      env: { ...process.env, MODELS_DIR: modelsDir, SPEECH_MODEL_BASE_URL: baseUrl },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it("pull NAME refuses without --sha256, pulls with it, and list shows the model unpacked", async () => {
    const body = archive();
    served[`${DIR}.tar.bz2`] = body;
    const refused = await models(["pull", NAME]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`--sha256=<hex>`);
    const pulled = await models(["pull", NAME, `--sha256=${sha256(body)}`]);
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toContain(`${NAME}: downloaded, verified and unpacked → ${path.join(modelsDir, DIR)}`);
    const listed = await models(["list"]);
    expect(listed.stdout).toMatch(new RegExp(`${NAME.replaceAll(".", "\\.")} .*unpacked`));
  });
});
