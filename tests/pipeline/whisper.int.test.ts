// Speech recognition that hears every language, through the real gateway, workers,
// Postgres, Redis and S3 server. The Whisper engine runs whisper.cpp's own test model (the real ggml
// format without real weights, so its text is empty): these tests prove the load and run path, the
// audio language, timed segments in order over the socket, and recovery — not the words.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import type { ServiceProcess } from "../infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createUser, listen, startWorker, upload } from "../support/pipeline.ts";

jest.setTimeout(300_000);

const ROOT = path.resolve(import.meta.dirname, "../..");
const MP3 = readFileSync(path.join(ROOT, "tests/fixtures/audio/interview-en.mp3"));
const TEST_MODEL = path.join(ROOT, "tests/fixtures/models/for-tests-ggml-tiny.bin");
const WHISPER = { TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL_PATH: TEST_MODEL, TRANSCRIPTION_FALLBACK: "none" };

/** German speech made with espeak-ng: a real non-English recording with pauses. */
function germanWav(): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-de-"));
  try {
    const file = path.join(dir, "de.wav");
    execFileSync("espeak-ng", [
      "-v",
      "de",
      "-w",
      file,
      "Guten Tag. Wie haben Sie das Unternehmen gegründet? [[_:_:_:]] Wir haben vor zehn Jahren angefangen, mit zwei Kunden.",
    ]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let t: TestGateway;
const workers: ServiceProcess[] = [];
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  for (const w of workers) w.child.kill("SIGKILL");
  await t?.close();
});

const snapshot = (jobId: string, token: string) =>
  fetch(`${t.url}/api/transcriptions/${jobId}`, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
    r.json(),
  );

describe("the whisper engine", () => {
  it("says what it can do: every language, no notice", async () => {
    workers.push(await startWorker(t, "transcription-worker", { ...WHISPER, CHUNK_SECONDS: "15" }));
    workers.push(await startWorker(t, "text-worker"));
    const status = await fetch(`${t.url}/api/speech`).then((r) => r.json());
    const { routes, ...rest } = status;
    expect(rest).toEqual({ available: true, engine: "whisper", model: "test-tiny", languages: "all", notice: null });
    // Every audio language goes to Whisper with its model.
    expect(routes).toHaveLength(100);
    expect(
      routes.every((r: { engine: string; model: string }) => r.engine === "whisper" && r.model === "test-tiny"),
    ).toBe(true);
  });

  it("transcribes an English recording uploaded from the German interface, segments in order", async () => {
    const user = await createUser(t);
    const sock = await listen(t, user.token);
    const r = await upload(
      t,
      user.token,
      { data: MP3, name: "interview.mp3", type: "audio/mpeg" },
      { model: "meeting", language: "en", uiLanguage: "de" },
    );
    expect(r.status).toBe(202);
    const { jobId } = r.body;
    const done = await sock.until(
      (m) => m.jobId === jobId && (m.status === "Transcription complete" || m.status === "Failed"),
    );
    expect(done.status).toBe("Transcription complete");

    const live = sock.messages.filter((m) => m.jobId === jobId && m.type === "segments");
    const chunks = await t.db.transcriptChunk.findMany({ where: { jobId }, orderBy: { index: "asc" } });
    expect(chunks.length).toBeGreaterThanOrEqual(4); // 61 s of speech in chunks of at most 15 s
    // Every chunk once, in order, before "Transcription complete"; the audio done only rises.
    expect(live.map((m) => m.chunkIndex)).toEqual(chunks.map((c) => c.index));
    const completeAt = sock.messages.findIndex((m) => m.jobId === jobId && m.status === "Transcription complete");
    expect(sock.messages.indexOf(live.at(-1))).toBeLessThan(completeAt);
    const doneSeconds = live.map((m) => m.audioSecondsDone);
    expect([...doneSeconds].sort((a, b) => a - b)).toEqual(doneSeconds);
    expect(doneSeconds.at(-1)).toBe(live[0].audioSecondsTotal);
    expect(live.every((m) => m.language === "en")).toBe(true);
    expect(live.slice(1).every((m) => typeof m.etaSeconds === "number")).toBe(true);
    for (const c of chunks) expect(c.endSeconds - c.startSeconds).toBeLessThanOrEqual(15.001);

    const snap = await snapshot(jobId, user.token);
    expect(snap).toMatchObject({
      audioLanguage: "en",
      detectedLanguage: null,
      transcriptionEngine: "whisper:test-tiny",
    });
    expect(Array.isArray(snap.segments)).toBe(true);
    const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.language).toBe("de"); // the interface language stays for links and e-mails
    await sock.until((m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"));
    sock.close();
  });

  it("takes a German recording and detects the language once with auto", async () => {
    const user = await createUser(t);
    const sock = await listen(t, user.token);
    const wav = germanWav();
    const asked = await upload(t, user.token, { data: wav, name: "de.wav" }, { model: "general", language: "de" });
    const auto = await upload(t, user.token, { data: wav, name: "auto.wav" }, { model: "general", language: "auto" });
    expect([asked.status, auto.status]).toEqual([202, 202]);
    for (const { jobId } of [asked.body, auto.body]) {
      const end = await sock.until(
        (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
      );
      expect(end.status).toBe("Correction complete");
    }
    const a = await snapshot(asked.body.jobId, user.token);
    expect([a.audioLanguage, a.detectedLanguage]).toEqual(["de", null]);
    const b = await snapshot(auto.body.jobId, user.token);
    expect(b.audioLanguage).toBe("auto");
    // The test model has no real weights, so which language it "hears" is arbitrary; that it was
    // detected once and used for every chunk is what counts.
    expect(b.detectedLanguage).toMatch(/^[a-z]{2,3}$/);
    const live = sock.messages.filter((m) => m.jobId === auto.body.jobId && m.type === "segments");
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((m) => m.language === b.detectedLanguage)).toBe(true);
    sock.close();
  });

  it("refuses an unknown audio language with a clear 400", async () => {
    const user = await createUser(t);
    const r = await upload(t, user.token, { data: MP3, name: "a.mp3" }, { model: "meeting", language: "klingon" });
    expect([r.status, r.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(r.body.error.message).toMatch(/language/);
  });

  it("redoes a chunk cut by a killed worker once, completes the job and charges once", async () => {
    for (const w of workers.splice(0)) w.child.kill("SIGKILL");
    const env = { ...WHISPER, CHUNK_SECONDS: "10" };
    let tx = await startWorker(t, "transcription-worker", env);
    workers.push(tx, await startWorker(t, "text-worker"));
    const user = await createUser(t);
    const sock = await listen(t, user.token);
    const r = await upload(t, user.token, { data: MP3, name: "interview.mp3" }, { model: "meeting", language: "en" });
    const { jobId } = r.body;
    // Killed while whisper works on a chunk: one chunk is out, others are not done yet.
    await sock.until((m) => m.jobId === jobId && m.type === "segments");
    tx.child.kill("SIGKILL");
    await tx.exited;
    const before = await t.db.transcriptChunk.findMany({ where: { jobId } });
    expect(before.some((c) => !c.doneAt)).toBe(true);
    tx = await startWorker(t, "transcription-worker", env);
    workers.push(tx);
    const done = await sock.until(
      (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
    );
    expect(done.status).toBe("Correction complete");

    const after = await t.db.transcriptChunk.findMany({ where: { jobId }, orderBy: { index: "asc" } });
    expect(after.map((c) => c.index)).toEqual(before.map((c) => c.index).sort((a, b) => a - b));
    // Chunks finished before the kill kept their first result (not transcribed again).
    for (const c of before.filter((b) => b.doneAt)) {
      expect(after.find((a) => a.index === c.index)?.doneAt?.getTime()).toBe(c.doneAt?.getTime());
    }
    // Every chunk's live text went out on this socket, in order. A chunk whose message went out just
    // before the kill (before its "sent" mark was committed) is sent again, identical: at least once,
    // never out of order, and clients keep one per chunk index.
    const live = sock.messages.filter((m) => m.jobId === jobId && m.type === "segments");
    const order = live.map((m) => m.chunkIndex);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect([...new Set(order)]).toEqual(after.map((c) => c.index));
    expect(order.length - after.length).toBeLessThanOrEqual(1);
    const u = await t.db.user.findUniqueOrThrow({ where: { id: user.uid } });
    const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(u.secondsUsed).toBe(Math.round(job.durationSeconds));
    expect(await t.db.usageEvent.count({ where: { userId: user.uid } })).toBe(1);
    sock.close();
  });
});

describe("no model, no surprise", () => {
  it("falls back to pocketsphinx for English with a notice, and refuses other languages naming the setting", async () => {
    for (const w of workers.splice(0)) w.child.kill("SIGKILL");
    const empty = mkdtempSync(path.join(os.tmpdir(), "kikitori-models-"));
    try {
      const tx = await startWorker(t, "transcription-worker", {
        TRANSCRIPTION_ENGINE: "whisper",
        MODELS_DIR: empty,
        WHISPER_MODEL: "small",
      });
      workers.push(tx, await startWorker(t, "text-worker"));
      // The log says so at start, loudly.
      expect(tx.output()).toMatch(/SPEECH ENGINE FALLBACK/);
      const status = await fetch(`${t.url}/api/speech`).then((r) => r.json());
      expect(status).toMatchObject({ available: true, engine: "pocketsphinx", languages: ["en"] });
      expect(status.notice).toMatchObject({
        code: "SPEECH_FALLBACK_ROUGH",
        setting: expect.stringContaining("WHISPER_MODEL"),
      });
      expect(status.notice.reason).toContain("small");

      const user = await createUser(t);
      const ja = await upload(t, user.token, { data: MP3, name: "a.mp3" }, { model: "meeting", language: "ja" });
      expect([ja.status, ja.body.error.code]).toEqual([422, "TRANSCRIPTION_LANGUAGE_UNSUPPORTED"]);
      expect(ja.body.error.message).toContain("WHISPER_MODEL");
      expect(await t.db.transcriptionJob.count({ where: { userId: user.uid } })).toBe(0);

      const sock = await listen(t, user.token);
      const en = await upload(t, user.token, { data: MP3, name: "a.mp3" }, { model: "meeting", language: "en" });
      expect(en.status).toBe(202);
      const done = await sock.until(
        (m) => m.jobId === en.body.jobId && (m.status === "Transcription complete" || m.status === "Failed"),
      );
      expect(done.status).toBe("Transcription complete");
      const snap = await snapshot(en.body.jobId, user.token);
      expect(snap.transcriptionEngine).toBe("pocketsphinx");
      // pocketsphinx gives timed segments with word times, in order, inside the recording.
      expect(snap.segments.length).toBeGreaterThan(3);
      expect(
        snap.segments.every(
          (s: { start: number; end: number }) => s.end >= s.start && s.end <= snap.durationSeconds + 0.01,
        ),
      ).toBe(true);
      const starts = snap.segments.map((s: { start: number }) => s.start);
      expect([...starts].sort((a, b) => a - b)).toEqual(starts);
      expect(snap.segments[0].words.length).toBeGreaterThan(0);
      sock.close();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
