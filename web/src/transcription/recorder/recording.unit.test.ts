import { describe, expect, it } from "@jest/globals";
import { MAX_UPLOAD_BYTES } from "@kikitori/shared";
import { checkFile } from "../form.ts";
import {
  extensionFor,
  fileTypeFor,
  levelOf,
  nearLimit,
  pickMimeType,
  recordingFileName,
  sessionElapsedMs,
  totalSeconds,
} from "./recording.ts";

describe("pickMimeType", () => {
  const supports =
    (...types: string[]) =>
    (t: string) =>
      types.includes(t);

  it("prefers Opus in WebM, then Opus in Ogg, then Safari's MP4, then any WebM", () => {
    expect(pickMimeType(supports("audio/webm", "audio/webm;codecs=opus", "audio/mp4"))).toBe("audio/webm;codecs=opus");
    expect(pickMimeType(supports("audio/ogg;codecs=opus", "audio/webm"))).toBe("audio/ogg;codecs=opus");
    expect(pickMimeType(supports("audio/mp4"))).toBe("audio/mp4");
    expect(pickMimeType(supports("audio/webm"))).toBe("audio/webm");
  });

  it("null when none is supported (the browser then picks), and an engine that throws counts as no", () => {
    expect(pickMimeType(supports("audio/wav"))).toBeNull();
    expect(
      pickMimeType((t) => {
        if (t.includes("codecs")) throw new Error("bad type");
        return t === "audio/mp4";
      }),
    ).toBe("audio/mp4");
  });
});

describe("the recording as a file", () => {
  it("extension and MIME type from the recorder's type, codecs dropped", () => {
    expect(extensionFor("audio/webm;codecs=opus")).toBe("webm");
    expect(extensionFor("audio/ogg; codecs=opus")).toBe("ogg");
    expect(extensionFor("audio/mp4;codecs=mp4a.40.2")).toBe("m4a");
    expect(extensionFor("")).toBe("webm");
    expect(fileTypeFor("audio/webm;codecs=opus")).toBe("audio/webm");
    expect(fileTypeFor("audio/ogg;codecs=opus")).toBe("audio/ogg");
    expect(fileTypeFor("audio/mp4")).toBe("audio/mp4");
  });

  it("is named after its local start time, with the part number when there are several", () => {
    const start = new Date(2026, 10, 25, 14, 3, 59);
    expect(recordingFileName("Recording", start, "audio/webm;codecs=opus")).toBe("Recording 2026-11-25 14-03.webm");
    expect(recordingFileName("録音", start, "audio/mp4", 2)).toBe("録音 2026-11-25 14-03 (2).m4a");
    expect(recordingFileName("A/B: test", new Date(2026, 0, 5, 9, 7), "audio/ogg")).toBe(
      "A-B- test 2026-01-05 09-07.ogg",
    );
    expect(recordingFileName("  ", start, "audio/webm")).toBe("Recording 2026-11-25 14-03.webm");
  });

  it("passes the form's own file check like a dropped recording", () => {
    for (const type of ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4"]) {
      const name = recordingFileName("Recording", new Date(), type);
      expect(checkFile({ name, size: 1000, type: fileTypeFor(type) })).toBeNull();
    }
  });
});

describe("levelOf", () => {
  it("silence is 0, a full-scale square wave is 1, speech-like levels in between", () => {
    expect(levelOf(new Uint8Array(0))).toBe(0);
    expect(levelOf(new Uint8Array(512).fill(128))).toBe(0);
    expect(levelOf(Uint8Array.from({ length: 512 }, (_, i) => (i % 2 ? 255 : 0)))).toBe(1);
    const quiet = levelOf(Uint8Array.from({ length: 512 }, (_, i) => 128 + Math.round(20 * Math.sin(i / 5))));
    expect(quiet).toBeGreaterThan(0.2);
    expect(quiet).toBeLessThan(0.5);
  });
});

describe("lengths and limits", () => {
  it("the elapsed time leaves out pauses, a running pause too", () => {
    expect(sessionElapsedMs({ startedAt: 1000, pausedMs: 0, pausedAt: null }, 13_000)).toBe(12_000);
    expect(sessionElapsedMs({ startedAt: 1000, pausedMs: 2000, pausedAt: null }, 13_000)).toBe(10_000);
    expect(sessionElapsedMs({ startedAt: 1000, pausedMs: 2000, pausedAt: 10_000 }, 13_000)).toBe(7000);
    expect(sessionElapsedMs({ startedAt: 5000, pausedMs: 0, pausedAt: null }, 1000)).toBe(0);
  });

  it("parts add up, and recording stops just before the upload limit", () => {
    expect(totalSeconds([{ durationMs: 61_500 }, { durationMs: 3500 }])).toBe(65);
    expect(totalSeconds([])).toBe(0);
    expect(nearLimit(MAX_UPLOAD_BYTES - 1024 * 1024)).toBe(false);
    expect(nearLimit(MAX_UPLOAD_BYTES - 100 * 1024)).toBe(true);
  });
});
