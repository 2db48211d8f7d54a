import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../api/errors.ts";
import { noticeFromError, noticeFromErrorBody, noticeText, reasonNotice, type Translate } from "./notice.ts";

const dict: Record<string, string> = {
  "payment.success": "Subscription processed successfully.",
  "payment.unexpectedError": "An unexpected error occurred.",
  "errors.PAYMENT_DECLINED": "Your card was declined.",
  "errors.HTTP_ERROR": "Server error: {{status}}",
};
const t: Translate = (key, o) => {
  const s = dict[key];
  if (s === undefined) return (o?.defaultValue as string | undefined) ?? key;
  return s.replace(/\{\{(\w+)\}\}/g, (_, k) => String(o?.[k] ?? ""));
};

describe("notice text", () => {
  it("prefers a translated key, then the text, then the unexpected-error message", () => {
    expect(noticeText(t, { key: "payment.success" })).toBe("Subscription processed successfully.");
    expect(noticeText(t, { key: "errors.NEW_CODE", text: "Server words" })).toBe("Server words");
    expect(noticeText(t, { text: "Your card has insufficient funds." })).toBe("Your card has insufficient funds.");
    expect(noticeText(t, { key: "errors.NEW_CODE" })).toBe("An unexpected error occurred.");
    expect(noticeText(t, {})).toBe("An unexpected error occurred.");
  });
  it("passes values", () => {
    expect(noticeText(t, noticeFromError(new ApiError("HTTP_ERROR", 502, "server error: 502"), "x"))).toBe(
      "Server error: 502",
    );
  });
});

describe("notices from errors", () => {
  it("maps API errors by code, keeping message and link", () => {
    const n = noticeFromError(
      new ApiError("PAYMENT_DECLINED", 402, "Declined", "https://help"),
      "payment.genericError",
    );
    expect(n).toEqual({
      key: "errors.PAYMENT_DECLINED",
      text: "Declined",
      values: { status: 402 },
      link: "https://help",
    });
    expect(noticeText(t, n)).toBe("Your card was declined.");
  });
  it("a missing session is 'no authenticated user'", () => {
    expect(noticeFromError(new ApiError("UNAUTHENTICATED", 401, "No token"), "x")).toEqual({
      key: "payment.noAuthenticatedUser",
    });
  });
  it("other throwables use the fallback key", () => {
    expect(noticeFromError(new TypeError("boom"), "payment.genericError")).toEqual({ key: "payment.genericError" });
  });
  it("error bodies", () => {
    expect(noticeFromErrorBody({ code: "SAME_PLAN", message: "Same" }, "f")).toEqual({
      key: "errors.SAME_PLAN",
      text: "Same",
      link: undefined,
    });
    expect(noticeFromErrorBody({ code: "", message: "Only words" }, "f")).toEqual({
      text: "Only words",
      link: undefined,
    });
    expect(noticeFromErrorBody({ code: "" }, "f")).toEqual({ key: "f" });
  });
  it("renewal failures: the provider code is translated, the provider sentence is the fallback", () => {
    expect(reasonNotice("Your card was declined.", "card_declined")).toEqual({
      key: "plan.failureReasons.card_declined",
      text: "Your card was declined.",
    });
    expect(noticeText(t, reasonNotice("Something odd happened.", "odd_code"))).toBe("Something odd happened.");
    expect(noticeText(t, reasonNotice("", "PAYMENT_DECLINED"))).toBe("Your card was declined.");
  });
  it("renewal failure reasons without a code: API codes are translated, sentences shown as they are", () => {
    expect(noticeText(t, reasonNotice("PAYMENT_DECLINED"))).toBe("Your card was declined.");
    expect(noticeText(t, reasonNotice("UNKNOWN_THING"))).toBe("UNKNOWN_THING");
    expect(noticeText(t, reasonNotice("Insufficient funds."))).toBe("Insufficient funds.");
  });
});
