import { describe, expect, it } from "@jest/globals";
import { MAX_UPLOAD_BYTES, type TranscriptionSnapshot } from "@kikitori/shared";
import {
  ACTIVE_JOB_KEY,
  activeJobStore,
  checkFile,
  checkSubmit,
  DEFAULT_FILE_TYPE,
  formatFileSize,
  formatSeconds,
  isSameOrigin,
  nextScreen,
  recentJobs,
  runningJob,
} from "./form.ts";

describe("default file type", () => {
  it("is the general conversation type, a valid wire value, and not meeting", () => {
    expect(DEFAULT_FILE_TYPE).toBe("general");
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: DEFAULT_FILE_TYPE })).toBeNull();
  });
});

describe("checkFile", () => {
  it("refuses files over 20 MiB and accepts exactly 20 MiB", () => {
    expect(checkFile({ name: "a.mp3", size: MAX_UPLOAD_BYTES + 1, type: "audio/mpeg" })).toBe("tooLarge");
    expect(checkFile({ name: "a.mp3", size: MAX_UPLOAD_BYTES, type: "audio/mpeg" })).toBeNull();
    expect(MAX_UPLOAD_BYTES).toBe(20_971_520);
  });

  it("accepts audio MIME types or known extensions, refuses others", () => {
    expect(checkFile({ name: "rec.M4A", size: 10, type: "" })).toBeNull();
    expect(checkFile({ name: "voice", size: 10, type: "audio/ogg" })).toBeNull();
    expect(checkFile({ name: "talk.flac", size: 10, type: "application/octet-stream" })).toBeNull();
    expect(checkFile({ name: "notes.pdf", size: 10, type: "application/pdf" })).toBe("unsupported");
  });

  it("accepts videos and what browsers and phones record (their sound is transcribed)", () => {
    expect(checkFile({ name: "interview.mp4", size: 10, type: "video/mp4" })).toBeNull();
    expect(checkFile({ name: "IMG_0042.MOV", size: 10, type: "video/quicktime" })).toBeNull();
    expect(checkFile({ name: "recording.webm", size: 10, type: "audio/webm" })).toBeNull();
    expect(checkFile({ name: "memo.opus", size: 10, type: "" })).toBeNull();
    expect(checkFile({ name: "clip", size: 10, type: "video/webm" })).toBeNull();
    expect(checkFile({ name: "slides.pptx", size: 10, type: "" })).toBe("unsupported");
  });
});

describe("checkSubmit", () => {
  it("checks login, then file, then file type", () => {
    expect(checkSubmit({ loggedIn: false, hasFile: false, model: "" })).toBe("loginRequired");
    expect(checkSubmit({ loggedIn: true, hasFile: false, model: "" })).toBe("fileNotSelected");
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: "" })).toBe("fileTypeRequired");
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: "podcast" })).toBe("fileTypeRequired");
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: "meeting" })).toBeNull();
  });

  it("then an audio language the speech engine takes", () => {
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: "meeting", languageRefused: true })).toBe(
      "languageUnsupported",
    );
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: "", languageRefused: true })).toBe("fileTypeRequired");
    expect(checkSubmit({ loggedIn: true, hasFile: true, model: "meeting", languageRefused: false })).toBeNull();
  });
});

describe("formatting", () => {
  it("file sizes", () => {
    expect(formatFileSize(512, "en")).toBe("512 B");
    expect(formatFileSize(1536, "en")).toBe("1.5 KB");
    expect(formatFileSize(MAX_UPLOAD_BYTES, "en")).toBe("20 MB");
  });

  it("seconds with one decimal", () => {
    expect(formatSeconds(12.345, "en")).toBe("12.3");
    expect(formatSeconds(1234.5, "de")).toBe("1.234,5");
  });
});

describe("isSameOrigin", () => {
  it("allows relative and same-origin URLs only", () => {
    expect(isSameOrigin("/api/audio/1", "https://app.example.com")).toBe(true);
    expect(isSameOrigin("https://app.example.com/api/audio/1", "https://app.example.com")).toBe(true);
    expect(isSameOrigin("https://evil.example.com/a", "https://app.example.com")).toBe(false);
    expect(isSameOrigin("//evil.example.com/a", "https://app.example.com")).toBe(false);
  });
});

describe("recentJobs", () => {
  it("newest first, at most 10", () => {
    const jobs = Array.from(
      { length: 12 },
      (_, i) =>
        ({ jobId: `j${i}`, createdAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString() }) as TranscriptionSnapshot,
    );
    const mixed = [...jobs.slice(6), ...jobs.slice(0, 6).reverse()];
    const out = recentJobs(mixed);
    expect(out).toHaveLength(10);
    expect(out[0].jobId).toBe("j11");
    expect(out[9].jobId).toBe("j2");
  });
});

describe("activeJobStore", () => {
  it("keeps the job id under kikitori.activeJob and survives a throwing storage", () => {
    const m = new Map<string, string>();
    const store = activeJobStore({
      getItem: (k) => m.get(k) ?? null,
      setItem: (k, v) => void m.set(k, v),
      removeItem: (k) => void m.delete(k),
    });
    store.set("0b7f3f0c-1d2e-4f5a-9b8c-7d6e5f4a3b2c");
    expect(m.get(ACTIVE_JOB_KEY)).toBe("0b7f3f0c-1d2e-4f5a-9b8c-7d6e5f4a3b2c");
    expect(store.get()).toBe("0b7f3f0c-1d2e-4f5a-9b8c-7d6e5f4a3b2c");
    m.set(ACTIVE_JOB_KEY, "../../etc");
    expect(store.get()).toBeNull();
    store.clear();
    expect(m.has(ACTIVE_JOB_KEY)).toBe(false);

    const broken = activeJobStore({
      getItem: () => {
        throw new Error("blocked");
      },
      setItem: () => {
        throw new Error("blocked");
      },
      removeItem: () => {
        throw new Error("blocked");
      },
    });
    expect(() => broken.set("x")).not.toThrow();
    expect(broken.get()).toBeNull();
    expect(() => broken.clear()).not.toThrow();
    expect(activeJobStore(null).get()).toBeNull();
  });
});

describe("nextScreen", () => {
  const visitor = { uid: null, generation: 0 };
  it("keeps the visitor's screen when they log in (file and form stay)", () => {
    expect(nextScreen(visitor, "u1")).toEqual({ uid: "u1", generation: 0 });
  });
  it("starts afresh on logout and on another user", () => {
    const u1 = { uid: "u1", generation: 0 };
    expect(nextScreen(u1, null)).toEqual({ uid: null, generation: 1 });
    expect(nextScreen(u1, "u2")).toEqual({ uid: "u2", generation: 1 });
  });
  it("returns the same object when nothing changed", () => {
    expect(nextScreen(visitor, null)).toBe(visitor);
  });
});

describe("runningJob", () => {
  const job = (jobId: string, status: string, createdAt: string) =>
    ({ jobId, status, createdAt }) as unknown as TranscriptionSnapshot;
  it("is the newest job still running", () => {
    const jobs = [
      job("done", "completed", "2026-01-03T00:00:00Z"),
      job("old", "transcribing", "2026-01-01T00:00:00Z"),
      job("new", "correcting", "2026-01-02T00:00:00Z"),
      job("bad", "failed", "2026-01-04T00:00:00Z"),
    ];
    expect(runningJob(jobs)).toBe("new");
    expect(runningJob([job("q", "queued", "2026-01-01T00:00:00Z")])).toBe("q");
  });
  it("is null when nothing runs or the list is not there yet", () => {
    expect(runningJob([job("done", "completed", "2026-01-03T00:00:00Z")])).toBeNull();
    expect(runningJob(undefined)).toBeNull();
  });
});
