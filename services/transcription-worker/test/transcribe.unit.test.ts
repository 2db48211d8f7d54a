import type { ProgressEnvelope } from "@kikitori/shared";
import { createLogger, UnrecoverableJobError } from "@kikitori/shared/server";
import {
  processTranscription,
  reportTranscriptionFailure,
  type TranscriptionDeps,
} from "../src/handlers/transcribe.ts";

const logger = createLogger("test", "silent");
const published: ProgressEnvelope[] = [];
const deps = {
  db: {} as TranscriptionDeps["db"],
  store: {} as TranscriptionDeps["store"],
  logger,
  publish: async (e: ProgressEnvelope) => {
    published.push(e);
  },
} satisfies TranscriptionDeps;
const job = (data: unknown) => ({ id: "1", name: "transcribe", data, attemptsMade: 0, opts: { attempts: 5 } });
const valid = {
  jobId: "5f0c7a43-2f4e-4b0e-9a55-0c1f3f9f6a01",
  userId: "9a1d2c3b-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
  audioKey: "audio/x.mp3",
  correlationId: "req-1",
};

beforeEach(() => {
  published.length = 0;
});

describe("processTranscription", () => {
  it("rejects a bad payload without retry", async () => {
    await expect(processTranscription(deps, job({ jobId: "x" }))).rejects.toMatchObject({
      name: "UnrecoverableError",
      code: "VALIDATION_FAILED",
    });
  });

  it("fails a valid job unrecoverably until the pipeline exists", async () => {
    const err = await processTranscription(deps, job(valid)).catch((e) => e);
    expect(err).toBeInstanceOf(UnrecoverableJobError);
    expect(err.message).toMatch(/not implemented yet/);
  });
});

describe("reportTranscriptionFailure", () => {
  it("publishes a Failed event to the job's owner", async () => {
    const err = await processTranscription(deps, job(valid)).catch((e) => e);
    await reportTranscriptionFailure(deps, job(valid), err);
    expect(published).toEqual([
      {
        userId: valid.userId,
        correlationId: "req-1",
        event: { jobId: valid.jobId, status: "Failed", error: { code: "INTERNAL", message: err.message } },
      },
    ]);
  });

  it("publishes nothing for a payload without an owner", async () => {
    await reportTranscriptionFailure(deps, job({}), new Error("x"));
    expect(published).toEqual([]);
  });
});
