import { describe, expect, it } from "@jest/globals";
import { initialTranscriptionState, transcriptionReducer } from "./progress.ts";
import { addSample, RATE_WINDOW_MS, uploadRate } from "./uploadRate.ts";

describe("upload speed and time left", () => {
  it("measures bytes per second over the samples and the time left for the rest", () => {
    const r = uploadRate(
      [
        { at: 0, sent: 0 },
        { at: 2_000, sent: 4_000_000 },
      ],
      10_000_000,
    );
    expect(r).toEqual({ bytesPerSecond: 2_000_000, eta: 3 });
  });

  it("says nothing before a second of progress, or when nothing moved", () => {
    expect(uploadRate([{ at: 0, sent: 0 }], 10)).toBeNull();
    expect(
      uploadRate(
        [
          { at: 0, sent: 0 },
          { at: 500, sent: 5 },
        ],
        10,
      ),
    ).toBeNull();
    expect(
      uploadRate(
        [
          { at: 0, sent: 5 },
          { at: 5_000, sent: 5 },
        ],
        10,
      ),
    ).toBeNull();
  });

  it("keeps only the last window of samples, and starts over when the count goes back (a resent chunk)", () => {
    let s = addSample([], { at: 0, sent: 0 });
    s = addSample(s, { at: 1_000, sent: 100 });
    s = addSample(s, { at: RATE_WINDOW_MS + 2_000, sent: 900 });
    expect(s.map((x) => x.at)).toEqual([1_000, RATE_WINDOW_MS + 2_000]);
    expect(addSample(s, { at: RATE_WINDOW_MS + 3_000, sent: 50 })).toEqual([{ at: RATE_WINDOW_MS + 3_000, sent: 50 }]);
  });
});

describe("upload progress while a lost connection is retried", () => {
  it("does not move the bar back for resent bytes, and flags the reconnecting until progress goes on", () => {
    let s = transcriptionReducer(initialTranscriptionState, { type: "uploadStart" });
    s = transcriptionReducer(s, { type: "uploadProgress", sent: 600, total: 1000 });
    const before = s.progress;
    s = transcriptionReducer(s, { type: "uploadProgress", sent: 400, total: 1000, reconnecting: true });
    expect([s.progress, s.upload]).toEqual([before, { sent: 600, total: 1000, reconnecting: true }]);
    s = transcriptionReducer(s, { type: "uploadProgress", sent: 800, total: 1000 });
    expect(s.upload).toEqual({ sent: 800, total: 1000 });
    expect(s.progress).toBeGreaterThan(before);
  });
});
