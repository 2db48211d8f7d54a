import { describe, expect, it } from "@jest/globals";
import { errorLinkKind } from "./errorLink.ts";

const origin = "https://app.example.com";

describe("an error's link is named for where it goes", () => {
  it("the plan page, absolute or relative, any language, is the plan", () => {
    expect(errorLinkKind("https://app.example.com/en/upgrade-plan", origin)).toEqual({
      kind: "plan",
      sameOrigin: true,
    });
    expect(errorLinkKind("/ja/upgrade-plan", origin)).toEqual({ kind: "plan", sameOrigin: true });
    expect(errorLinkKind("/ar/upgrade-plan/", origin)).toEqual({ kind: "plan", sameOrigin: true });
    // The server's public URL may name the app by another host: still the plan page.
    expect(errorLinkKind("http://localhost:8080/en/upgrade-plan", origin)).toEqual({ kind: "plan", sameOrigin: false });
  });
  it("anything else is support", () => {
    expect(errorLinkKind("https://help.example.com/contact", origin).kind).toBe("support");
    expect(errorLinkKind("https://help.example.com/upgrade-plan", origin).kind).toBe("support");
    expect(errorLinkKind("/en/summary", origin).kind).toBe("support");
    expect(errorLinkKind("http://[bad", origin).kind).toBe("support");
  });
});
