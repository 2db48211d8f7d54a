// The account's glossary (GET/PUT /api/account/glossary): stored normalized, limits answered with
// 400, 401 without a login; an upload keeps its own glossary field, else the account's, and the
// job's snapshot shows the one it used.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { transcriptionSnapshotSchema } from "@kikitori/shared";
import { ffmpegPath } from "@kikitori/shared/server";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { createUser, upload } from "../../../tests/support/pipeline.ts";

let t: TestGateway;
let dir: string;
let audio: Buffer;
beforeAll(async () => {
  t = await startTestGateway();
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-glossary-"));
  const file = path.join(dir, "tone.mp3");
  execFileSync(ffmpegPath(), [
    ...["-v", "error", "-y", "-f", "lavfi", "-t", "5", "-i", "sine=f=300:r=8000"],
    ...["-ac", "1", "-b:a", "8k", file],
  ]);
  audio = readFileSync(file);
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (token: string | null, method: "GET" | "PUT", body?: unknown) => {
  const res = await fetch(`${t.url}/api/account/glossary`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
};

it("stores the account's glossary trimmed, without blanks or case-insensitive duplicates", async () => {
  const { token } = await createUser(t);
  expect(await call(token, "GET")).toEqual({ status: 200, body: { terms: [] } });
  const put = await call(token, "PUT", { terms: [" Honey Cake ", "", "apprentices", "HONEY CAKE", "Apprentices"] });
  expect(put).toEqual({ status: 200, body: { terms: ["Honey Cake", "apprentices"] } });
  expect(await call(token, "GET")).toEqual({ status: 200, body: { terms: ["Honey Cake", "apprentices"] } });
  expect(await call(token, "PUT", { terms: [] })).toEqual({ status: 200, body: { terms: [] } });
});

it("refuses more than 500 terms, a term over 100 characters and a body without terms (400)", async () => {
  const { token } = await createUser(t);
  await call(token, "PUT", { terms: ["Kept"] });
  for (const body of [
    { terms: Array.from({ length: 501 }, (_, i) => `Term ${i}`) },
    { terms: ["x".repeat(101)] },
    { terms: "Honey Cake" },
    {},
  ]) {
    const res = await call(token, "PUT", body);
    expect([res.status, res.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
  }
  expect((await call(token, "PUT", { terms: Array.from({ length: 500 }, (_, i) => `T${i}`) })).status).toBe(200);
  expect((await call(token, "GET")).body.terms).toHaveLength(500);
});

it("answers 401 without a login", async () => {
  expect((await call(null, "GET")).status).toBe(401);
  expect((await call(null, "PUT", { terms: ["A"] })).status).toBe(401);
});

it("gives a job the upload's glossary, else the account's, and shows it in the snapshot", async () => {
  const { token } = await createUser(t);
  await call(token, "PUT", { terms: ["Account Term"] });
  const snapshot = async (fields: Record<string, string>) => {
    const res = await upload(t, token, { data: audio, name: "tone.mp3", type: "audio/mpeg" }, fields);
    expect(res.status).toBe(202);
    const snap = await fetch(`${t.url}/api/transcriptions/${res.body.jobId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return transcriptionSnapshotSchema.parse(await snap.json());
  };
  const own = await snapshot({ model: "meeting", glossary: "Honey Cake\r\nApprentices\n\nhoney cake" });
  expect(own.glossary).toEqual(["Honey Cake", "Apprentices"]);
  expect((await snapshot({ model: "meeting" })).glossary).toEqual(["Account Term"]);
  expect((await snapshot({ model: "meeting", glossary: " \n " })).glossary).toEqual(["Account Term"]);
  const tooLong = await upload(
    t,
    token,
    { data: audio, name: "tone.mp3", type: "audio/mpeg" },
    {
      model: "meeting",
      glossary: "y".repeat(101),
    },
  );
  expect([tooLong.status, tooLong.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
}, 60_000);

it("is part of the account's data download", async () => {
  const { token } = await createUser(t);
  await call(token, "PUT", { terms: ["Honey Cake"] });
  const res = await fetch(`${t.url}/api/auth/account/export`, { headers: { authorization: `Bearer ${token}` } });
  expect((await res.json()).glossary).toEqual(["Honey Cake"]);
});
