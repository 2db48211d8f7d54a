import { UnrecoverableError } from "bullmq";
import { z } from "zod";
import { AppError } from "../src/errors.ts";
import { jobFailure, parseJobPayload, toJobError, UnrecoverableJobError } from "../src/server/job-errors.ts";
import { isFinalFailure } from "../src/server/workers.ts";

describe("toJobError", () => {
  it("makes a non-retryable AppError unrecoverable for BullMQ, keeping its code", () => {
    const err = toJobError(new AppError("UNSUPPORTED_AUDIO", "not audio"));
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).name).toBe("UnrecoverableError");
    expect((err as UnrecoverableJobError).code).toBe("UNSUPPORTED_AUDIO");
    expect((err as Error).message).toBe("not audio");
  });

  it("leaves retryable AppErrors and other errors as they are", () => {
    const retryable = new AppError("SERVICE_UNAVAILABLE", "s3 down");
    const plain = new Error("ECONNRESET");
    expect(toJobError(retryable)).toBe(retryable);
    expect(toJobError(plain)).toBe(plain);
  });
});

describe("jobFailure", () => {
  it("reports AppErrors by code and hides other errors' internals", () => {
    expect(jobFailure(new UnrecoverableJobError(new AppError("QUOTA_EXCEEDED", "no minutes left")))).toEqual({
      code: "QUOTA_EXCEEDED",
      message: "no minutes left",
    });
    expect(jobFailure(new AppError("INTERNAL", "boom"))).toEqual({ code: "INTERNAL", message: "boom" });
    expect(jobFailure(new Error("password=hunter2"))).toEqual({ code: "INTERNAL", message: "Processing failed" });
  });
});

describe("parseJobPayload", () => {
  const schema = z.object({ jobId: z.string().uuid() });
  it("returns the parsed payload", () => {
    const jobId = "0b7e0f3c-51b4-4bb0-9a43-9d2f9c3f2c11";
    expect(parseJobPayload(schema, { jobId })).toEqual({ jobId });
  });
  it("throws an unrecoverable VALIDATION_FAILED for a bad payload", () => {
    try {
      parseJobPayload(schema, { jobId: "nope" });
      throw new Error("should have thrown");
    } catch (err) {
      expect(err).toBeInstanceOf(UnrecoverableJobError);
      expect((err as UnrecoverableJobError).code).toBe("VALIDATION_FAILED");
      expect((err as UnrecoverableJobError).appError.details).toEqual([{ path: "jobId", message: expect.any(String) }]);
    }
  });
});

describe("isFinalFailure", () => {
  it("is final for unrecoverable errors or when attempts are used up", () => {
    expect(isFinalFailure({ attemptsMade: 1, opts: { attempts: 5 } }, new UnrecoverableError("x"))).toBe(true);
    expect(isFinalFailure({ attemptsMade: 1, opts: { attempts: 5 } }, new Error("x"))).toBe(false);
    expect(isFinalFailure({ attemptsMade: 5, opts: { attempts: 5 } }, new Error("x"))).toBe(true);
    expect(isFinalFailure({ attemptsMade: 1, opts: {} }, new Error("x"))).toBe(true);
  });
});
