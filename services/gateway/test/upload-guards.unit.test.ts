import { AppError } from "@kikitori/shared";
import { LoginThrottle } from "../src/auth/limits.ts";
import { findUnstorable, hasUnstorableChars } from "../src/input.ts";
import { assertMultipartBoundary, multipartError } from "../src/jobs/upload-guards.ts";
import { Semaphore } from "../src/lib/semaphore.ts";

describe("Semaphore (decodes per gateway)", () => {
  it("lets `max` in at once, queues the rest in order, and times a waiter out with 503", async () => {
    const s = new Semaphore(2);
    const r1 = await s.acquire(1000);
    const r2 = await s.acquire(1000);
    expect(s.inUse).toBe(2);
    const order: number[] = [];
    const w3 = s.acquire(1000).then((r) => {
      order.push(3);
      return r;
    });
    const w4 = s.acquire(1000).then((r) => {
      order.push(4);
      return r;
    });
    expect(s.queued).toBe(2);
    r1();
    r1(); // a second release of the same holder does nothing
    const r3 = await w3;
    expect(order).toEqual([3]);
    expect(s.inUse).toBe(2);
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    const late = s.acquire(20);
    await expect(late).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(s.queued).toBe(0);
    r3();
    r4();
    expect(s.inUse).toBe(0);
  });
});

describe("multipart errors", () => {
  it("a boundary is required", () => {
    expect(() => assertMultipartBoundary("multipart/form-data")).toThrow(AppError);
    expect(() => assertMultipartBoundary("multipart/form-data; charset=utf-8")).toThrow(AppError);
    expect(() => assertMultipartBoundary("multipart/form-data; boundary=abc")).not.toThrow();
    expect(() => assertMultipartBoundary('multipart/form-data; boundary="a b"')).not.toThrow();
  });

  it("parser errors become 4xx codes; coded errors pass unchanged", () => {
    expect((multipartError(new Error("Part terminated early due to unexpected end"), true) as AppError).code).toBe(
      "REQUEST_INCOMPLETE",
    );
    expect((multipartError(new Error("Malformed part header"), true) as AppError).code).toBe("VALIDATION_FAILED");
    const premature = Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
    expect((multipartError(premature, false) as AppError).code).toBe("REQUEST_INCOMPLETE");
    const disk = Object.assign(new Error("no space"), { code: "ENOSPC" });
    expect(multipartError(disk, true)).toBe(disk);
  });
});

describe("unstorable characters", () => {
  it("finds NUL bytes and lone surrogates, not paired ones", () => {
    expect(hasUnstorableChars("a\u0000b")).toBe(true);
    expect(hasUnstorableChars("a\ud800b")).toBe(true);
    expect(hasUnstorableChars("a\udc00")).toBe(true);
    expect(hasUnstorableChars("emoji 😀 日本語")).toBe(false);
    expect(findUnstorable({ a: ["ok", { b: "x\u0000" }] })).toBe("body.a.1.b");
    expect(findUnstorable(Object.fromEntries([["k\u0000", 1]]))).toBe("body.k\u0000");
    expect(findUnstorable({ a: "fine", n: 1, z: null })).toBeNull();
  });
});

describe("LoginThrottle", () => {
  it("slows an account down after its free failures, doubling up to the cap", () => {
    const t = new LoginThrottle({} as never, "p", {
      perSource: 20,
      perAccountSource: 10,
      slowdownAfter: 5,
      maxDelayMs: 2000,
    });
    expect([0, 5].map((n) => t.delayFor(n))).toEqual([0, 0]);
    expect([6, 7, 8, 9, 10, 100].map((n) => t.delayFor(n))).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });
});
