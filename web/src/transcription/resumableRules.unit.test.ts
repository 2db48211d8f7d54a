import { describe, expect, it } from "@jest/globals";
import { MAX_UPLOAD_BYTES } from "@kikitori/shared";
import { checkFile } from "./form.ts";
import { isResumable, shouldRetryStatus, tusError } from "./resumableRules.ts";

describe("resumable uploads", () => {
  it("take files over the single POST's 20 MiB only", () => {
    expect(isResumable(MAX_UPLOAD_BYTES)).toBe(false);
    expect(isResumable(MAX_UPLOAD_BYTES + 1)).toBe(true);
  });

  it("retry lost connections, server errors, offset conflicts and expired tokens, not refusals", () => {
    for (const s of [0, 401, 408, 409, 423, 429, 500, 502, 503]) expect(shouldRetryStatus(s)).toBe(true);
    for (const s of [400, 402, 403, 404, 410, 413, 415, 422]) expect(shouldRetryStatus(s)).toBe(false);
  });

  it("read the API error of a refused request, and a network error without an answer", () => {
    const response = (status: number, body: string) =>
      Object.assign(new Error("refused"), {
        originalResponse: {
          getStatus: () => status,
          getBody: () => body,
          getHeader: () => undefined,
          getUnderlyingObject: () => null,
        },
      });
    const tooLarge = tusError(
      response(
        413,
        JSON.stringify({ error: { code: "FILE_TOO_LARGE", message: "too large", details: { maxUploadBytes: 5 } } }),
      ) as never,
    );
    expect([tooLarge.code, tooLarge.status]).toEqual(["FILE_TOO_LARGE", 413]);
    expect(tusError(new Error("offline")).code).toBe("NETWORK_ERROR");
  });
});

describe("the drop zone's size check", () => {
  it("takes the plan's limit: 20 MiB by default, more on a paid plan", () => {
    const file = { name: "long.wav", size: 30 * 1024 * 1024, type: "audio/wav" };
    expect(checkFile(file)).toBe("tooLarge");
    expect(checkFile(file, 500 * 1024 * 1024)).toBeNull();
    expect(checkFile({ ...file, size: 600 * 1024 * 1024 }, 500 * 1024 * 1024)).toBe("tooLarge");
  });
});
