// The upload use case (services/gateway/src/jobs/upload-usecases.ts) against in-memory fakes of its ports:
// the order of the checks, what is stored, recorded, queued and published, and what is taken back
// when a step fails. The registry's real producer runs on a fake queue, so the queued payload is
// validated as in production.
import {
  AppError,
  JobContractError,
  type ProgressEnvelope,
  SPEECH_STATUS_UNKNOWN,
  type SpeechStatus,
  uploadFieldsSchema,
} from "@kikitori/shared";
import { createJobQueues, type ProducerQueue, sniffAudioFormat } from "@kikitori/shared/server";
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
    objects: new Map<string, { path: string; bytes: number; contentType: string }>(),
    removed: [] as string[],
    rows: [] as NewTranscriptionJob[],
    added: [] as Array<{ queue: string; name: string; data: unknown; opts: unknown }>,
    published: [] as ProgressEnvelope[],
    warnings: [] as unknown[],
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
  const queues = createJobQueues({
    connection: {} as never,
    prefix: "test",
    makeQueue: (queue) =>
      ({
        add: async (name: string, data: unknown, opts: unknown) => {
          s.added.push({ queue, name, data, opts });
          return {};
        },
        close: async () => undefined,
      }) as unknown as ProducerQueue,
  });
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
    audio: {
      put: async (key, path, bytes, contentType, sha256) => {
        s.objects.set(key, { path, bytes, contentType, ...(sha256 ? { sha256 } : {}) });
      },
      remove: async (key) => {
        s.removed.push(key);
        s.objects.delete(key);
      },
    },
    jobs: {
      createReserved: async (row) => {
        if (s.leftAtWrite < row.reservedSeconds) return false;
        s.leftAtWrite -= row.reservedSeconds;
        s.rows.push(row);
        return true;
      },
    },
    queues,
    publish: async (envelope) => {
      s.published.push(envelope);
      return 1;
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

it("stores, records, queues and announces an accepted recording", async () => {
  const { s, service } = world();
  const accepted = await service.accept(request({}, { uiLanguage: "ja", interviewer: "Aki", speakers: "2" }));
  expect(accepted).toEqual({ jobId: JOB, bytes: 96_000, format: "wav", durationSeconds: 60 });

  const key = `users/${UID}/audio/${JOB}.wav`;
  expect([...s.objects]).toEqual([[key, { path: "/tmp/upload/audio", bytes: 96_000, contentType: "audio/wav" }]]);
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
  expect(s.added).toEqual([
    {
      queue: "transcription",
      name: "transcribe",
      data: { jobId: JOB, userId: UID, audioKey: key, correlationId: "req-1" },
      opts: { jobId: JOB },
    },
  ]);
  expect(s.published).toEqual([
    {
      userId: UID,
      correlationId: "req-1",
      event: { jobId: JOB, status: "File uploaded", audioFileUrl: `/api/audio/${JOB}` },
    },
  ]);
  expect({ taken: s.slotsTaken, inUse: s.slotsInUse }).toEqual({ taken: 1, inUse: 0 });
});

it("refuses a missing or empty file before anything else", async () => {
  const { s, service } = world();
  expect(await codeOf(service.accept(request({ file: null })))).toBe("FILE_MISSING");
  expect(await codeOf(service.accept(request({ file: file({ bytes: 0 }) })))).toBe("FILE_EMPTY");
  expect({ slots: s.slotsTaken, objects: s.objects.size, rows: s.rows.length }).toEqual({
    slots: 0,
    objects: 0,
    rows: 0,
  });
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

it("answers 'try again' when the store fails, leaving nothing half-written", async () => {
  const { s, service } = world({
    audio: {
      put: async () => {
        throw new Error("ECONNRESET");
      },
      remove: async (key) => {
        s.removed.push(key);
      },
    },
  });
  expect(await codeOf(service.accept(request()))).toBe("SERVICE_UNAVAILABLE");
  expect(s.removed).toEqual([`users/${UID}/audio/${JOB}.wav`]);
  expect({ rows: s.rows.length, added: s.added.length }).toEqual({ rows: 0, added: 0 });
});

it("takes the stored audio back out when the job row cannot be written", async () => {
  const { s, service } = world({
    jobs: {
      createReserved: async () => {
        throw new Error("db down");
      },
    },
  });
  await expect(service.accept(request())).rejects.toThrow("db down");
  expect(s.objects.size).toBe(0);
  expect(s.added).toEqual([]);
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
  expect(s.removed).toEqual([`users/${UID}/audio/${JOB}.wav`]);
  expect({
    objects: s.objects.size,
    rows: s.rows.length,
    added: s.added.length,
    published: s.published.length,
  }).toEqual({ objects: 0, rows: 0, added: 0, published: 0 });
});

it("queues only what the registry accepts", async () => {
  const { s, service } = world({ newId: () => "not-a-uuid" });
  await expect(service.accept(request())).rejects.toBeInstanceOf(JobContractError);
  expect(s.added).toEqual([]);
});

it("still accepts the upload when the progress message cannot go out", async () => {
  const warnings: unknown[] = [];
  const { s, service } = world({
    publish: async () => {
      throw new Error("redis blip");
    },
  });
  const accepted = await service.accept(request({ log: { warn: (...a: unknown[]) => warnings.push(a) } as never }));
  expect(accepted.jobId).toBe(JOB);
  expect(s.added).toHaveLength(1);
  expect(warnings).toEqual([[{ err: expect.any(Error) }, "could not publish File uploaded"]]);
});

/** A 16 kHz mono 16-bit PCM WAV header whose data chunk declares `seconds`. */
const pcmHead = (seconds: number) => {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(36 + seconds * 32_000, 4);
  h.write("WAVEfmt ", 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(16_000, 24);
  h.writeUInt32LE(32_000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36);
  h.writeUInt32LE(seconds * 32_000, 40);
  return h;
};

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
  s.secondsLeft = 60;
  const long = file({ head: pcmHead(600), bytes: 44 + 600 * 32_000 });
  expect(await codeOf(service.accept(request({ file: long })))).toBe("QUOTA_EXCEEDED");
  expect({ rows: s.rows.length, probed: s.probed, decoded: s.decoded }).toEqual({ rows: 1, probed: 0, decoded: 0 });
});

it("hands the store the hash taken while the file arrived, so it is not read twice", async () => {
  const { s, service } = world();
  const sha256 = "ab".repeat(32);
  await service.accept(request({ file: file({ sha256 }) }));
  expect([...s.objects.values()]).toEqual([expect.objectContaining({ sha256 })]);
});
