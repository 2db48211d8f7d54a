// The glossary through the whole pipeline: an account glossary with "Honey Cake" and "Apprentices",
// an interview recorded with espeak-ng whose transcript says "honey cake" and "apprentices", uploaded
// through the gateway, transcribed by the transcription worker and corrected by the correction
// worker's offline engine: the interview text has "Honey Cake" and "Apprentices", the speech engine
// was given the terms as its prompt, the job keeps the glossary it used, and the fidelity view
// shows the new spellings as glossary spellings, not as changed words; a turn written again after a
// transcript edit spells them the same way.
//
// The speech engine is the OpenAI-compatible one against a local stand-in (the HTTP boundary): the
// offline pocketsphinx engine does not hear espeak-ng's voice (it returns unrelated words for these
// sentences), and no real Whisper model is available to the tests; the stand-in answers with the
// words a speech engine hears in lower case and without punctuation, as pocketsphinx writes them.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { fidelityReportSchema, transcriptionSnapshotSchema } from "@kikitori/shared";
import type { ServiceProcess } from "../infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { multipartField, startOpenAiStandin } from "../support/openai-standin.ts";
import { createUser, listen, startWorker, upload } from "../support/pipeline.ts";

jest.setTimeout(240_000);

const SAID = [
  "So what do you bake every morning?",
  "Well, honey cake mostly, and the apprentices help me.",
  "The apprentices start at five, and they love honey cake.",
];
const HEARD = SAID.map((s) => s.toLowerCase().replace(/[?,.]/g, ""));

let t: TestGateway;
let standin: Awaited<ReturnType<typeof startOpenAiStandin>>;
let dir: string;
const workers: ServiceProcess[] = [];
beforeAll(async () => {
  t = await startTestGateway();
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-glossary-"));
  standin = await startOpenAiStandin(() => ({
    json: {
      text: HEARD.join(" "),
      language: "english",
      duration: 9,
      segments: HEARD.map((text, i) => ({ id: i, start: i * 3, end: i * 3 + 2.8, text: ` ${text}` })),
    },
  }));
});
afterAll(async () => {
  for (const w of workers) w.child.kill("SIGKILL");
  await standin?.close();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The interview as espeak-ng says it (a WAV of real synthetic speech, so the voice detection hears it). */
function interviewWav(): Buffer {
  const file = path.join(dir, "interview.wav");
  execFileSync("espeak-ng", ["-v", "en-us", "-s", "150", "-w", file, SAID.join(" [[_:_:]] ")]);
  return readFileSync(file);
}

it("writes the account glossary's spellings into the interview text", async () => {
  workers.push(
    await startWorker(t, "transcription-worker", {
      TRANSCRIPTION_ENGINE: "openai",
      OPENAI_BASE_URL: standin.url,
      OPENAI_API_KEY: "sk-standin",
      TRANSCRIPTION_FALLBACK: "none",
      DIARIZATION_ENGINE: "none",
    }),
    await startWorker(t, "text-worker"),
  );
  const user = await createUser(t);
  const auth = { authorization: `Bearer ${user.token}` };
  const put = await fetch(`${t.url}/api/account/glossary`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ terms: ["Honey Cake", "Apprentices"] }),
  });
  expect(put.status).toBe(200);

  const sock = await listen(t, user.token);
  const r = await upload(
    t,
    user.token,
    { data: interviewWav(), name: "bakery.wav", type: "audio/wav" },
    { model: "general", language: "en", interviewer: "Anna", interviewee: "Ben" },
  );
  expect(r.status).toBe(202);
  const { jobId } = r.body;
  const done = await sock.until(
    (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
  );
  sock.close();
  expect(done.status).toBe("Correction complete");

  // The transcript is as heard; the interview text spells the terms as the glossary does.
  const snap = transcriptionSnapshotSchema.parse(
    await (await fetch(`${t.url}/api/transcriptions/${jobId}`, { headers: auth })).json(),
  );
  expect(snap.glossary).toEqual(["Honey Cake", "Apprentices"]);
  expect(snap.transcription).toContain("honey cake");
  expect(snap.transcription).toContain("apprentices");
  const text = snap.rewrittenText ?? "";
  expect(text).toContain("Honey Cake");
  expect(text).toContain("Apprentices");
  expect(text).not.toMatch(/\bhoney cake\b|\bapprentices\b/);

  // The speech engine was given the names and the terms as its prompt.
  const prompts = standin.requests.map((q) => multipartField(q.body, "prompt") ?? "");
  expect(prompts.length).toBeGreaterThan(0);
  for (const p of prompts) expect(p).toContain("Anna, Ben, Honey Cake, Apprentices.");

  // The fidelity view: the glossary's spellings are the words heard.
  const report = fidelityReportSchema.parse(
    await (await fetch(`${t.url}/api/transcriptions/${jobId}/fidelity`, { headers: auth })).json(),
  );
  expect(report.glossaryFixes).toEqual(
    expect.arrayContaining([
      { from: "honey cake", to: "Honey Cake", count: 2 },
      { from: "apprentices", to: "Apprentices", count: 2 },
    ]),
  );
  const flagged = [...report.reworded, ...report.invented].flatMap((f) => f.words);
  expect(flagged).not.toEqual(expect.arrayContaining(["Honey"]));
  expect(flagged).not.toEqual(expect.arrayContaining(["Apprentices"]));

  // A transcript edit: the turn the interview text writes again spells the terms the same way.
  const edit = await fetch(`${t.url}/api/transcriptions/${jobId}`, {
    method: "PATCH",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      version: snap.version,
      segments: [{ index: 2, text: "the apprentices start at six and they love honey cake" }],
    }),
  });
  expect(edit.status).toBe(200);
  const deadline = Date.now() + 60_000;
  let synced = snap;
  while (Date.now() < deadline) {
    synced = transcriptionSnapshotSchema.parse(
      await (await fetch(`${t.url}/api/transcriptions/${jobId}`, { headers: auth })).json(),
    );
    if (synced.interviewSync === "in-sync" && synced.rewrittenText?.includes("six")) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(synced.rewrittenText).toMatch(/start at six/);
  expect(synced.rewrittenText).not.toMatch(/\bhoney cake\b|\bapprentices\b/);
  expect(synced.rewrittenText?.match(/Honey Cake/g)).toHaveLength(2);
});
