// Uploads hold their minutes from the moment they are accepted: the quota counts what is in flight,
// not only what has been charged, so uploads queued one after another (or at once) cannot spend more
// than the plan has.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ffmpegPath } from "@kikitori/shared/server";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { createUser, upload } from "../../../tests/support/pipeline.ts";

let t: TestGateway;
let dir: string;
let fifteen: Buffer;
beforeAll(async () => {
  t = await startTestGateway();
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-quota-"));
  const file = path.join(dir, "fifteen.mp3");
  // 15 minutes at 8 kb/s: under 1 MB.
  execFileSync(ffmpegPath(), [
    ...["-v", "error", "-y", "-f", "lavfi", "-t", "900", "-i", "sine=f=300:r=8000"],
    ...["-ac", "1", "-b:a", "8k", file],
  ]);
  fifteen = readFileSync(file);
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("on a free account (30 min), a third 15-minute upload while two are in flight is refused with 402", async () => {
  const { uid, token } = await createUser(t);
  const up = (name: string, data = fifteen) => upload(t, token, { data, name, type: "audio/mpeg" });
  expect((await up("part-1.mp3")).status).toBe(202);
  expect((await up("part-2.mp3")).status).toBe(202);
  const third = await up("part-3.mp3");
  expect([third.status, third.body.error.code]).toEqual([402, "QUOTA_EXCEEDED"]);
  const jobs = await t.db.transcriptionJob.findMany({ where: { userId: uid } });
  expect(jobs.map((j) => j.reservedSeconds)).toEqual([900, 900]);
  // Nothing charged yet, and nothing left: even a short upload is refused.
  expect((await t.db.user.findUniqueOrThrow({ where: { id: uid } })).secondsUsed).toBe(0);
  expect((await up("short.mp3", fifteen.subarray(0, 70_000))).status).toBe(402);
}, 120_000);

it("two 15-minute uploads at once with 20 minutes left: exactly one is accepted", async () => {
  const { uid, token } = await createUser(t, { secondsUsed: 600 });
  const results = await Promise.all(
    [1, 2].map((i) => upload(t, token, { data: fifteen, name: `part-${i}.mp3`, type: "audio/mpeg" })),
  );
  expect(results.map((r) => r.status).sort()).toEqual([202, 402]);
  expect((await t.db.transcriptionJob.findMany({ where: { userId: uid } })).map((j) => j.reservedSeconds)).toEqual([
    900,
  ]);
}, 120_000);
