import { describe, expect, it } from "@jest/globals";
import { ApiError, isApiError, toApiError } from "./errors.ts";

describe("toApiError", () => {
  it("reads the API's error shape", () => {
    const e = toApiError(402, { error: { code: "QUOTA_EXCEEDED", message: "Quota used", link: "/en/upgrade-plan" } });
    expect(e).toBeInstanceOf(ApiError);
    expect(isApiError(e)).toBe(true);
    expect([e.code, e.status, e.message, e.link]).toEqual(["QUOTA_EXCEEDED", 402, "Quota used", "/en/upgrade-plan"]);
  });
  it("leaves out an empty link", () => {
    expect(toApiError(401, { error: { code: "INVALID_CREDENTIALS", message: "x", link: "" } }).link).toBeUndefined();
  });
  it.each([undefined, "Bad Gateway", { message: "x" }, { error: "x" }, { error: { code: "" } }])(
    "falls back to HTTP_ERROR for %p",
    (body) => {
      const e = toApiError(502, body);
      expect([e.code, e.status, e.message]).toEqual(["HTTP_ERROR", 502, "server error: 502"]);
    },
  );
});
