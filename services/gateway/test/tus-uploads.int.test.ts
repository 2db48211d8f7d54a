// Resumable uploads (tus 1.0.0 at /api/uploads): per-plan limits at creation, a 60 MB WAV in two
// PATCHes becoming a job, ownership, offsets, the single POST's refusals for a bad file, termination,
// discovery and the day-long expiry; against the real gateway, Postgres and the S3 stand-in.
import http from "node:http";
import { createLogger, createObjectStore, sweepAbandonedUploads, uploadPartsPrefix } from "@kikitori/shared/server";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { audioStored, createUser, upload } from "../../../tests/support/pipeline.ts";
import { toneWav } from "../../../tests/support/wav.ts";
import { loadGatewayConfig } from "../src/config.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const MiB = 1024 * 1024;
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const metadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(",");

/** A 16-bit stereo 48 kHz WAV of `bytes` bytes (rounded down to whole frames): a tone with pauses. */
const wav = (bytes: number) =>
  toneWav(bytes, { rate: 48_000, channels: 2, hz: 440, amplitude: 8000, toneSeconds: 2, periodSeconds: 3 });

async function tus(
  method: string,
  path: string,
  token: string | null,
  headers: Record<string, string> = {},
  body?: Buffer,
) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      "tus-resumable": "1.0.0",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { "content-type": "application/offset+octet-stream" } : {}),
      ...headers,
    },
    body: body ? new Uint8Array(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function create(token: string, length: number, name = "interview.wav") {
  const res = await tus("POST", "/api/uploads", token, {
    "upload-length": String(length),
    "upload-metadata": metadata({ filename: name, filetype: "audio/wav", model: "meeting", interviewer: "Ana" }),
  });
  expect(res.status).toBe(201);
  const location = res.headers.get("location") ?? "";
  expect(location).toMatch(/^\/api\/uploads\/[0-9a-f-]{36}$/);
  return location;
}

const patch = (token: string | null, location: string, offset: number, body: Buffer) =>
  tus("PATCH", location, token, { "upload-offset": String(offset) }, body);

const store = () => createObjectStore(loadGatewayConfig(t.env));

it("creation over the free plan's 20 MiB is refused with 413 and the limit; user-usage shows each plan's limit", async () => {
  const free = await createUser(t);
  const res = await tus("POST", "/api/uploads", free.token, {
    "upload-length": String(20 * MiB + 1),
    "upload-metadata": metadata({ filename: "long.wav", model: "meeting" }),
  });
  expect([res.status, res.body.error.code, res.body.error.details.maxUploadBytes]).toEqual([
    413,
    "FILE_TOO_LARGE",
    20_971_520,
  ]);
  expect(res.headers.get("tus-resumable")).toBe("1.0.0");
  const usage = async (token: string) =>
    (await fetch(`${t.url}/api/user-usage`, { headers: { authorization: `Bearer ${token}` } })).json();
  expect((await usage(free.token)).maxUploadBytes).toBe(20_971_520);
  const premium = await createUser(t, { plan: "premium" });
  expect((await usage(premium.token)).maxUploadBytes).toBeGreaterThanOrEqual(500 * 1000 * 1000);
  // Within the limit is fine on the free plan too.
  expect(
    (
      await tus("POST", "/api/uploads", free.token, {
        "upload-length": String(20 * MiB),
        "upload-metadata": metadata({ filename: "ok.wav", model: "meeting" }),
      })
    ).status,
  ).toBe(201);
}, 60_000);

it("a premium user's 60 MB WAV sent in two PATCHes becomes a queued job; only its owner reaches it", async () => {
  const { uid, token } = await createUser(t, { plan: "premium" });
  const other = await createUser(t, { plan: "premium" });
  const data = wav(60 * 1000 * 1000);
  const half = 30 * 1000 * 1000;
  const location = await create(token, data.length);
  const id = location.split("/").pop() ?? "";

  const first = await patch(token, location, 0, data.subarray(0, half));
  expect([first.status, first.headers.get("upload-offset")]).toEqual([204, String(half)]);
  expect(first.headers.get("upload-expires")).toBeTruthy();
  const head = await tus("HEAD", location, token);
  expect([head.status, head.headers.get("upload-offset"), head.headers.get("upload-length")]).toEqual([
    200,
    String(half),
    String(data.length),
  ]);
  expect(await (await fetch(`${t.url}${location}`, { headers: { authorization: `Bearer ${token}` } })).json()).toEqual({
    offset: half,
    length: data.length,
    jobId: null,
    error: null,
  });

  // Someone else's upload does not exist for them; without a token nothing does; a wrong offset is a 409.
  expect((await tus("HEAD", location, other.token)).status).toBe(404);
  expect((await patch(other.token, location, half, data.subarray(half, half + 10))).status).toBe(404);
  expect((await tus("HEAD", location, null)).status).toBe(401);
  const wrong = await patch(token, location, 1234, data.subarray(1234, 2234));
  expect([wrong.status, wrong.body.error.code]).toEqual([409, "VERSION_CONFLICT"]);
  expect((await tus("HEAD", location, token)).headers.get("upload-offset")).toBe(String(half));

  const second = await patch(token, location, half, data.subarray(half));
  expect([second.status, second.headers.get("upload-offset")]).toEqual([204, String(data.length)]);
  const jobId = second.headers.get("upload-job-id");
  const status = await (await fetch(`${t.url}${location}`, { headers: { authorization: `Bearer ${token}` } })).json();
  expect(status).toEqual({ offset: data.length, length: data.length, jobId, error: null });
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId ?? "" } });
  expect([job.userId, job.status, job.audioBytes, job.audioFormat, job.originalName, job.interviewer]).toEqual([
    uid,
    "queued",
    data.length,
    "wav",
    "interview.wav",
    "Ana",
  ]);
  expect(job.durationSeconds).toBeCloseTo(data.length / (48_000 * 4), 0);
  // The recording is stored whole under the job (just after the answer); the parts are gone.
  await audioStored(t, job.id);
  expect((await store().stat(job.audioKey))?.size).toBe(data.length);
  expect(await store().removePrefix(uploadPartsPrefix(uid, id))).toBe(0);
  expect((await t.db.upload.findUniqueOrThrow({ where: { id } })).parts).toEqual([]);
}, 180_000);

it("a PATCH cut off mid-body keeps the bytes that arrived, and the upload resumes from the offset HEAD gives", async () => {
  const { token } = await createUser(t, { plan: "standard" });
  const data = wav(24 * MiB);
  const location = await create(token, data.length);
  // 9 MiB of a 24 MiB body, then the connection drops.
  await new Promise<void>((resolve) => {
    const req = http.request(`${t.url}${location}`, {
      method: "PATCH",
      headers: {
        "tus-resumable": "1.0.0",
        authorization: `Bearer ${token}`,
        "content-type": "application/offset+octet-stream",
        "upload-offset": "0",
        "content-length": String(data.length),
      },
    });
    req.on("error", () => resolve());
    req.write(data.subarray(0, 9 * MiB), () => setTimeout(() => req.destroy(), 300));
    req.on("close", () => resolve());
  });
  let offset = 0;
  for (let i = 0; i < 50 && offset < 9 * MiB; i++) {
    await new Promise((r) => setTimeout(r, 100));
    offset = Number((await tus("HEAD", location, token)).headers.get("upload-offset"));
  }
  expect(offset).toBe(9 * MiB);
  const rest = await patch(token, location, offset, data.subarray(offset));
  expect([rest.status, rest.headers.get("upload-offset")]).toEqual([204, String(data.length)]);
  expect(rest.headers.get("upload-job-id")).toBeTruthy();
}, 60_000);

it("a file that is no audio is refused at its last byte with the same answer as the single POST", async () => {
  const { token } = await createUser(t, { plan: "standard" });
  const junk = Buffer.alloc(3 * MiB, "not a recording ");
  const location = await create(token, junk.length, "junk.wav");
  const last = await patch(token, location, 0, junk);
  const single = await upload(t, token, { data: junk, name: "junk.wav", type: "audio/wav" });
  expect([last.status, last.body.error.code]).toEqual([single.status, single.body.error.code]);
  expect(last.status).toBe(415);
  const status = await (await fetch(`${t.url}${location}`, { headers: { authorization: `Bearer ${token}` } })).json();
  expect([status.jobId, status.error.code]).toEqual([null, "UNSUPPORTED_AUDIO"]);
  // A recording cut off after its header: the same 422 as the single POST.
  const cut = wav(2 * MiB);
  cut.writeUInt32LE(cut.length * 50, 40);
  const damaged = cut.subarray(0, 44 + 40);
  const cutLocation = await create(token, damaged.length, "cut.wav");
  const cutLast = await patch(token, cutLocation, 0, damaged);
  const cutSingle = await upload(t, token, { data: damaged, name: "cut.wav", type: "audio/wav" });
  expect([cutLast.status, cutLast.body.error.code]).toEqual([cutSingle.status, cutSingle.body.error.code]);
}, 60_000);

it("bad creations are 400s; DELETE ends an upload; OPTIONS tells the tus version, extensions and the limit", async () => {
  const { token } = await createUser(t);
  const deferred = await tus("POST", "/api/uploads", token, { "upload-defer-length": "1" });
  expect([deferred.status, deferred.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
  const badField = await tus("POST", "/api/uploads", token, {
    "upload-length": "1000",
    "upload-metadata": metadata({ filename: "a.wav", model: "no-such-model" }),
  });
  expect([badField.status, badField.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
  expect((await tus("POST", "/api/uploads", null, { "upload-length": "1000" })).status).toBe(401);

  const location = await create(token, 5000);
  expect((await patch(token, location, 0, Buffer.alloc(1000, 1))).status).toBe(204);
  expect((await tus("DELETE", location, token)).status).toBe(204);
  expect((await tus("HEAD", location, token)).status).toBe(404);

  // At most five unfinished uploads at once; ending one makes room.
  const open = [];
  for (let i = 0; i < 5; i++) open.push(await create(token, 5000));
  const sixth = await tus("POST", "/api/uploads", token, {
    "upload-length": "5000",
    "upload-metadata": metadata({ filename: "six.wav", model: "meeting" }),
  });
  expect([sixth.status, sixth.body.error.code]).toEqual([429, "RATE_LIMITED"]);
  expect((await tus("DELETE", open[0], token)).status).toBe(204);
  await create(token, 5000);

  const anonymous = await fetch(`${t.url}/api/uploads`, { method: "OPTIONS" });
  expect(anonymous.status).toBe(204);
  expect(anonymous.headers.get("tus-version")).toBe("1.0.0");
  expect(anonymous.headers.get("tus-extension")?.split(",")).toEqual(
    expect.arrayContaining(["creation", "creation-with-upload", "termination", "expiration"]),
  );
  expect(anonymous.headers.get("tus-max-size")).toBe(String(2 * 1024 * MiB));
  const signedIn = await fetch(`${t.url}/api/uploads`, {
    method: "OPTIONS",
    headers: { authorization: `Bearer ${token}` },
  });
  expect(signedIn.headers.get("tus-max-size")).toBe(String(20 * MiB));
}, 60_000);

it("an upload with no PATCH for a day is removed with its parts by the retention sweep", async () => {
  const { uid, token } = await createUser(t);
  const location = await create(token, 10_000);
  const id = location.split("/").pop() ?? "";
  expect((await patch(token, location, 0, Buffer.alloc(4000, 7))).status).toBe(204);
  const deps = { db: t.db, store: store(), logger: createLogger("test", "silent") };
  expect(await sweepAbandonedUploads(deps, new Date(Date.now() + 23 * 3_600_000))).toBe(0);
  // A day after its last PATCH the upload is gone for the client (410) even before the sweep runs.
  const day = 24 * 3_600_000;
  await t.db.upload.update({ where: { id }, data: { lastActivityAt: new Date(Date.now() - day - 60_000) } });
  const expired = await tus("HEAD", location, token);
  expect([expired.status, expired.body?.error?.code ?? null]).toEqual([410, null]);
  const late = await patch(token, location, 4000, Buffer.alloc(10, 7));
  expect([late.status, late.body.error.code]).toEqual([410, "AUDIO_EXPIRED"]);
  await t.db.upload.update({ where: { id }, data: { lastActivityAt: new Date() } });
  expect(await sweepAbandonedUploads(deps, new Date(Date.now() + 25 * 3_600_000))).toBeGreaterThanOrEqual(1);
  expect(await t.db.upload.findUnique({ where: { id } })).toBeNull();
  expect(await store().removePrefix(uploadPartsPrefix(uid, id))).toBe(0);
  expect((await tus("HEAD", location, token)).status).toBe(404);
}, 60_000);

it("the OpenAPI document lists the tus calls and the plan's maxUploadBytes", async () => {
  const doc = await (await fetch(`${t.url}/api/docs/json`)).json();
  expect(Object.keys(doc.paths["/api/uploads"])).toEqual(expect.arrayContaining(["post", "options"]));
  expect(Object.keys(doc.paths["/api/uploads/{id}"])).toEqual(
    expect.arrayContaining(["head", "patch", "delete", "get", "options"]),
  );
  const usage = doc.paths["/api/user-usage"].get.responses["200"].content["application/json"].schema;
  expect(usage.properties.maxUploadBytes).toBeTruthy();
}, 30_000);
