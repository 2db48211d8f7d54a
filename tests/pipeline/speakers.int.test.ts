// Who said what, through the real gateway, workers, Postgres, Redis and S3 server: a
// 20-turn interview of two real recorded voices (the LibriVox reader of pocketsphinx-testdata and
// Kennedy) comes back as alternating turns, each under the right name, and a rename follows through
// to the interview text. Speech recognition is pocketsphinx (English, offline); the speakers come
// from the classic diarization engine.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import type { ServiceProcess } from "../infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createUser, listen, startWorker, upload } from "../support/pipeline.ts";
import { buildInterview, realVoiceClips, writeWav } from "../support/two-voice.ts";

jest.setTimeout(300_000);

let t: TestGateway;
const workers: ServiceProcess[] = [];
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-speakers-"));
  t = await startTestGateway();
  workers.push(
    await startWorker(t, "transcription-worker", {
      TRANSCRIPTION_ENGINE: "pocketsphinx",
      DIARIZATION_ENGINE: "classic",
    }),
  );
  workers.push(await startWorker(t, "text-worker"));
});
afterAll(async () => {
  for (const w of workers) w.child.kill("SIGKILL");
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (token: string, url: string, init: RequestInit = {}) =>
  fetch(`${t.url}${url}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) },
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

it("a two-voice interview comes back as alternating turns under the right names, and renames follow", async () => {
  const v = realVoiceClips();
  const iv = buildInterview({ a: v.librivox, b: v.jfk }, 20, 7);
  const file = path.join(dir, "interview.wav");
  writeWav(file, iv.samples);

  const user = await createUser(t);
  const sock = await listen(t, user.token);
  const r = await upload(
    t,
    user.token,
    { data: readFileSync(file), name: "interview.wav", type: "audio/wav" },
    { model: "general", language: "en", interviewer: "Anna", interviewee: "Ben", speakers: "2" },
  );
  expect(r.status).toBe(202);
  const { jobId } = r.body;
  const done = await sock.until(
    (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
  );
  expect(done.status).toBe("Correction complete");

  // Live text carried the speakers already.
  const live = sock.messages.filter((m) => m.jobId === jobId && m.type === "segments").flatMap((m) => m.segments);
  expect(live.length).toBeGreaterThan(0);
  expect(live.every((s: { speaker?: number }) => s.speaker === 0 || s.speaker === 1)).toBe(true);
  sock.close();

  const snap = (await api(user.token, `/api/transcriptions/${jobId}`)).body;
  expect(snap).toMatchObject({ speakerCount: 2, diarizationEngine: "classic" });
  expect(snap.speakers).toHaveLength(2);
  const nameOf = new Map<number, string>(snap.speakers.map((s: { id: number; name: string }) => [s.id, s.name]));
  expect(new Set(nameOf.values())).toEqual(new Set(["Anna", "Ben"]));

  // Each segment sits in a truth turn: its speaker must be that voice's (one fixed name per voice).
  const voiceName = new Map<number, string>();
  let placed = 0;
  for (const s of snap.segments as Array<{ start: number; end: number; speaker: number }>) {
    const mid = (s.start + s.end) / 2;
    const truth = iv.truth.find((x) => mid >= x.start - 0.3 && mid <= x.end + 0.3);
    if (!truth) continue;
    placed++;
    const name = nameOf.get(s.speaker) as string;
    if (!voiceName.has(truth.speaker)) voiceName.set(truth.speaker, name);
    expect([truth.speaker, name]).toEqual([truth.speaker, voiceName.get(truth.speaker)]);
  }
  expect(placed).toBeGreaterThan(10);
  expect(voiceName.get(0)).not.toBe(voiceName.get(1));

  // The interview text: turns alternate between the two names, one label per turn, none merged.
  const turns = (snap.rewrittenText as string).split("\n\n").map((p) => p.split(":")[0]);
  expect(turns.every((l) => l === "Anna" || l === "Ben")).toBe(true);
  for (let i = 1; i < turns.length; i++) expect(turns[i]).not.toBe(turns[i - 1]);
  expect(turns.length).toBeGreaterThanOrEqual(18); // 20 turns; a turn pocketsphinx heard nothing in may be missing
  expect(turns[0]).toBe(voiceName.get(0));

  // Rename after the fact: Ben → Dr. Tanaka; then swap the roles.
  const benId = snap.speakers.find((s: { name: string }) => s.name === "Ben").id;
  const renamed = await api(user.token, `/api/transcriptions/${jobId}/speakers`, {
    method: "PATCH",
    body: JSON.stringify({ names: [{ id: benId, name: "Dr. Tanaka" }] }),
  });
  expect(renamed.status).toBe(200);
  const after = (renamed.body.rewrittenText as string).split("\n\n").map((p) => p.split(":")[0]);
  expect(after).toEqual(turns.map((l) => (l === "Ben" ? "Dr. Tanaka" : l)));
  const swapped = await api(user.token, `/api/transcriptions/${jobId}/speakers`, {
    method: "PATCH",
    body: JSON.stringify({ swapRoles: true }),
  });
  expect(swapped.status).toBe(200);
  // The voices change parts; the names stay with the parts (Anna asked the questions, says the upload).
  expect(swapped.body.speakers.find((s: { id: number }) => s.id === benId)).toEqual({
    id: benId,
    name: "Anna",
    role: "interviewer",
  });
  expect((swapped.body.rewrittenText as string).split("\n\n").map((p) => p.split(":")[0])).toEqual(
    after.map((l) => (l === "Anna" ? "Dr. Tanaka" : "Anna")),
  );

  // Bad renames get clear 4xx answers.
  const unknown = await api(user.token, `/api/transcriptions/${jobId}/speakers`, {
    method: "PATCH",
    body: JSON.stringify({ names: [{ id: 7, name: "X" }] }),
  });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.code).toBe("VALIDATION_FAILED");
  const empty = await api(user.token, `/api/transcriptions/${jobId}/speakers`, { method: "PATCH", body: "{}" });
  expect(empty.status).toBe(400);
  const other = await createUser(t);
  expect(
    (
      await api(other.token, `/api/transcriptions/${jobId}/speakers`, {
        method: "PATCH",
        body: JSON.stringify({ swapRoles: true }),
      })
    ).status,
  ).toBe(404);
});
