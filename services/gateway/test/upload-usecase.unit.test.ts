// The upload use case (services/gateway/src/jobs/upload-usecases.ts) against in-memory fakes of its ports:
// the order of the checks, what is recorded and handed off (stored and queued after the answer:
// audio-handoff.unit.test.ts), and what happens when a step fails.
import { AppError, SPEECH_STATUS_UNKNOWN, type SpeechStatus, uploadFieldsSchema } from "@kikitori/shared";
import { sniffAudioFormat } from "@kikitori/shared/server";
import { wavHeader } from "../../../tests/support/wav.ts";
import type { PendingRecording } from "../src/jobs/audio-handoff.ts";
import {
  type NewTranscriptionJob,
  type UploadedFile,
  type UploadPorts,
  type UploadRequest,
  UploadService,
} from "../src/jobs/upload-usecases.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const JOB = "7b0a3a8e-2a8f-4a59-9d5c-2f3e0d4f6a11";
const NOW = new Date("2026-03-01T12:00:00Z");
const WAV_HEAD = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVEfmt ")]);

function world(over: Partial<UploadPorts> = {}) {
  const s = {
    rows: [] as NewTranscriptionJob[],
    kept: [] as Array<[string, PendingRecording]>,
    marked: [] as string[],
    notStored: [] as string[],
    slotsTaken: 0,
    slotsInUse: 0,
    probed: 0,
    decoded: 0,
    secondsLeft: 3600,
    probe: { durationSeconds: 60, stream: 0 } as { durationSeconds: number; stream: number } | null,
    decodedWith: [] as unknown[][],
    /** Seconds the user's plan still has when the row is written (another upload may have taken some). */
    leftAtWrite: 3600,
    decodedSeconds: 60,
    speech: { ...SPEECH_STATUS_UNKNOWN, available: true, engine: "whisper", languages: "all" } as SpeechStatus,
    accountGlossary: ["Account Term"],
  };
  const ports: UploadPorts = {
    speechStatus: async () => s.speech,
    secondsLeft: async () => s.secondsLeft,
    accountGlossary: async () => s.accountGlossary,
    decodeSlot: async () => {
      s.slotsTaken++;
      s.slotsInUse++;
      return () => {
        s.slotsInUse--;
      };
    },
    probe: async () => {
      s.probed++;
      return s.probe;
    },
    sniff: async (_path, head) => sniffAudioFormat(head),
    decodedSeconds: async (...args) => {
      s.decoded++;
      s.decodedWith.push(args);
      return s.decodedSeconds;
    },
    storeReachable: async () => undefined,
    handoff: {
      mark: async (path) => {
        s.marked.push(path);
      },
      keep: (path, rec) => {
        s.kept.push([path, rec]);
      },
    },
    jobs: {
      createReserved: async (row) => {
        if (s.leftAtWrite < row.reservedSeconds) return false;
        s.leftAtWrite -= row.reservedSeconds;
        s.rows.push(row);
        return true;
      },
      notStored: async (jobId) => {
        s.notStored.push(jobId);
        return true;
      },
    },
    planLink: (lang) => `https://kikitori.test/${lang}/plan`,
    retentionDays: 30,
    now: () => NOW,
    newId: () => JOB,
    ...over,
  };
  return { s, service: new UploadService(ports) };
}

const file = (over: Partial<UploadedFile> = {}): UploadedFile => ({
  path: "/tmp/upload/audio",
  name: "interview.wav",
  bytes: 96_000,
  head: WAV_HEAD,
  ...over,
});

function request(over: Partial<UploadRequest> = {}, fields: Record<string, string> = {}): UploadRequest {
  return {
    userId: UID,
    fields: uploadFieldsSchema.parse({ model: "meeting", ...fields }),
    file: file(),
    correlationId: "req-1",
    log: { warn: () => undefined } as never,
    ...over,
  };
}

it("keeps the upload's glossary on the job, else the account's", async () => {
  const own = world();
  await own.service.accept(request({}, { glossary: "Honey Cake\n\napprentices\nHONEY CAKE" }));
  expect(own.s.rows[0].glossary).toEqual(["Honey Cake", "apprentices"]);
  const blank = world();
  await blank.service.accept(request({}, { glossary: "  \n" }));
  expect(blank.s.rows[0].glossary).toEqual(["Account Term"]);
  const none = world();
  await none.service.accept(request());
  expect(none.s.rows[0].glossary).toEqual(["Account Term"]);
});

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (err) => (err instanceof AppError ? err.code : String(err)),
  );

it("records an accepted recording with its minutes held, then hands it off to be stored and queued", async () => {
  const { s, service } = world();
  const accepted = await service.accept(request({}, { uiLanguage: "ja", interviewer: "Aki", speakers: "2" }));
  expect(accepted).toEqual({ jobId: JOB, bytes: 96_000, format: "wav", durationSeconds: 60 });

  const key = `users/${UID}/audio/${JOB}.wav`;
  expect(s.rows).toEqual([
    expect.objectContaining({
      id: JOB,
      userId: UID,
      correlationId: "req-1",
      audioKey: key,
      audioFormat: "wav",
      audioBytes: 96_000,
      audioStream: 0,
      durationSeconds: 60,
      reservedSeconds: 60,
      originalName: "interview.wav",
      model: "meeting",
      interviewer: "Aki",
      language: "ja",
      audioLanguage: "auto",
      speakerCount: 2,
      audioExpiresAt: new Date(NOW.getTime() + 30 * 86_400_000),
    }),
  ]);
  expect(s.kept).toEqual([
    [
      "/tmp/upload/audio",
      { jobId: JOB, userId: UID, audioKey: key, contentType: "audio/wav", bytes: 96_000, correlationId: "req-1" },
    ],
  ]);
  expect({ taken: s.slotsTaken, inUse: s.slotsInUse }).toEqual({ taken: 1, inUse: 0 });
});

it("marks a recording on disk before the answer; one held in memory is marked by the hand-off as it is written", async () => {
  const disk = world();
  await disk.service.accept(request());
  expect(disk.s.marked).toEqual(["/tmp/upload/audio"]);
  const held = world();
  await held.service.accept(
    request({ file: file({ held: { chunks: [Buffer.alloc(96_000)], free: () => undefined } }) }),
  );
  expect([held.s.marked, held.s.kept.length]).toEqual([[], 1]);
});

it("refuses a missing or empty file before anything else", async () => {
  const { s, service } = world();
  expect(await codeOf(service.accept(request({ file: null })))).toBe("FILE_MISSING");
  expect(await codeOf(service.accept(request({ file: file({ bytes: 0 }) })))).toBe("FILE_EMPTY");
  expect({ slots: s.slotsTaken, kept: s.kept.length, rows: s.rows.length }).toEqual({ slots: 0, kept: 0, rows: 0 });
});

it("refuses a language the engine in use cannot hear, before any decoding", async () => {
  const { s, service } = world();
  s.speech = { ...s.speech, engine: "pocketsphinx", languages: ["en"] };
  expect(await codeOf(service.accept(request({}, { language: "de" })))).toBe("TRANSCRIPTION_LANGUAGE_UNSUPPORTED");
  expect(await codeOf(service.accept(request({}, { language: "en" })))).toBe("resolved");
  expect(s.probed).toBe(1);
});

it("recognises the audio from its bytes, not its name", async () => {
  const { s, service } = world();
  const err = await service
    .accept(request({ file: file({ head: Buffer.from("%PDF-1.7 not audio") }) }))
    .catch((e) => e);
  expect(err).toMatchObject({
    code: "UNSUPPORTED_AUDIO",
    message: expect.stringMatching(/^The file is not a recording/),
  });
  expect(s.slotsTaken).toBe(0);
});

it("settles the minutes on the header before decoding, with the plan link in the user's language", async () => {
  const { s, service } = world();
  s.secondsLeft = 120;
  s.probe = { durationSeconds: 600, stream: 0 };
  const err = await service.accept(request({}, { uiLanguage: "de" })).catch((e) => e);
  expect(err).toMatchObject({
    code: "QUOTA_EXCEEDED",
    message: "This recording is 10 min long, but only 2 min are left this month",
    link: "https://kikitori.test/de/plan",
  });
  expect({ decoded: s.decoded, inUse: s.slotsInUse, rows: s.rows.length }).toEqual({ decoded: 0, inUse: 0, rows: 0 });
});

it("counts what really decodes: a header that claims too little still meets the quota", async () => {
  const { s, service } = world();
  s.secondsLeft = 120;
  s.probe = { durationSeconds: 60, stream: 0 };
  s.decodedSeconds = 121;
  expect(await codeOf(service.accept(request()))).toBe("QUOTA_EXCEEDED");
  expect(s.rows).toEqual([]);
});

it("refuses audio that decodes to less than half of what its header says, and frees the decode slot", async () => {
  const { s, service } = world();
  s.decodedSeconds = 20;
  const err = await service.accept(request()).catch((e) => e);
  expect(err).toMatchObject({ code: "AUDIO_DAMAGED", message: expect.stringContaining("damaged") });
  s.probe = null;
  expect(await codeOf(service.accept(request()))).toBe("AUDIO_DAMAGED");
  expect({ taken: s.slotsTaken, inUse: s.slotsInUse }).toEqual({ taken: 2, inUse: 0 });
});

it("answers 'try again' when the store does not answer, recording nothing", async () => {
  const { s, service } = world({ storeReachable: () => Promise.reject(new Error("ECONNREFUSED")) });
  expect(await codeOf(service.accept(request()))).toBe("SERVICE_UNAVAILABLE");
  expect({ rows: s.rows.length, kept: s.kept.length, probed: s.probed }).toEqual({ rows: 0, kept: 0, probed: 0 });
});

/** A 16 kHz mono 16-bit PCM WAV header whose data chunk declares `seconds`. */
const pcmHead = (seconds: number) => wavHeader(seconds * 32_000);

it("uses what the route asked for while the body arrived, and reads the minutes only when needed", async () => {
  let asked = 0;
  const { s, service } = world({
    secondsLeft: async () => {
      asked++;
      return 3600;
    },
  });
  const prelude = service.prepare(UID);
  s.accountGlossary = ["Later"]; // asked before: the prelude's answer counts
  await service.accept(request({ prelude, file: file({ head: pcmHead(90), bytes: 44 + 90 * 32_000 }) }));
  expect(s.rows[0]).toMatchObject({ reservedSeconds: 90, glossary: ["Account Term"] });
  // Measured from its header and let through by the row's quota guard: the minutes were not read.
  expect(asked).toBe(0);
  // A recording that must be probed reads them once, before it is decoded.
  await service.accept(request());
  expect({ asked, decoded: s.decoded }).toEqual({ asked: 1, decoded: 1 });
});

it("hands nothing off when the job row cannot be written", async () => {
  const { s, service } = world({
    jobs: {
      createReserved: async () => {
        throw new Error("db down");
      },
      notStored: async () => true,
    },
  });
  await expect(service.accept(request())).rejects.toThrow("db down");
  expect(s.kept).toEqual([]);
});

it("fails the job, giving its minutes back, when the recording cannot be handed off", async () => {
  const { s, service } = world({
    handoff: {
      mark: async () => {
        throw new Error("ENOSPC");
      },
      keep: () => {
        throw new Error("not marked: never kept");
      },
    },
  });
  expect(await codeOf(service.accept(request()))).toBe("SERVICE_UNAVAILABLE");
  expect(s.notStored).toEqual([JOB]);
});

it("decodes and records the audio stream the probe chose, and reserves its decoded seconds", async () => {
  const { s, service } = world();
  s.probe = { durationSeconds: 18.5, stream: 1 };
  s.decodedSeconds = 18.4;
  await service.accept(request());
  expect(s.decodedWith).toEqual([["/tmp/upload/audio", "wav", 1, 3601]]);
  expect(s.rows[0]).toMatchObject({ audioStream: 1, durationSeconds: 18.4, reservedSeconds: 18 });
});

it("refuses with QUOTA_EXCEEDED, keeping nothing, when parallel uploads took the minutes before the row is written", async () => {
  const { s, service } = world();
  s.leftAtWrite = 59;
  expect(await codeOf(service.accept(request()))).toBe("QUOTA_EXCEEDED");
  expect({ rows: s.rows.length, kept: s.kept.length }).toEqual({ rows: 0, kept: 0 });
});

it("measures an uncompressed WAV from its header: no probe, no decode, no decode slot", async () => {
  const { s, service } = world();
  const accepted = await service.accept(request({ file: file({ head: pcmHead(90), bytes: 44 + 90 * 32_000 }) }));
  expect(accepted).toMatchObject({ format: "wav", durationSeconds: 90 });
  expect({ probed: s.probed, decoded: s.decoded, taken: s.slotsTaken }).toEqual({ probed: 0, decoded: 0, taken: 0 });
  expect(s.rows[0]).toMatchObject({ durationSeconds: 90, reservedSeconds: 90, audioStream: 0 });
});

it("takes a WAV cut short for what it holds, refuses one with no audio, and settles the quota before anything", async () => {
  const { s, service } = world();
  // The header says 90 s, the bytes hold 30 s: as ffprobe and ffmpeg do, the 30 s are the recording.
  const cut = file({ head: pcmHead(90), bytes: 44 + 30 * 32_000 });
  expect(await service.accept(request({ file: cut }))).toMatchObject({ durationSeconds: 30 });
  const empty = file({ head: pcmHead(90), bytes: 44 + 3_000 });
  expect(await codeOf(service.accept(request({ file: empty })))).toBe("AUDIO_DAMAGED");
  s.secondsLeft = s.leftAtWrite = 60;
  const long = file({ head: pcmHead(600), bytes: 44 + 600 * 32_000 });
  expect(await service.accept(request({ file: long })).catch((e) => e)).toMatchObject({
    code: "QUOTA_EXCEEDED",
    message: "This recording is 10 min long, but only 1 min are left this month",
  });
  expect({ rows: s.rows.length, probed: s.probed, decoded: s.decoded }).toEqual({ rows: 1, probed: 0, decoded: 0 });
});
