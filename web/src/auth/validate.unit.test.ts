import { describe, expect, it } from "@jest/globals";
import { emailProblem, emailProblemKey } from "./validate.ts";

describe("e-mail field", () => {
  it("is required", () => {
    expect(emailProblem("")).toBe("required");
    expect(emailProblem("   ")).toBe("required");
  });
  it("must look like an address (the server's rule)", () => {
    for (const bad of ["not-an-email", "a@b", "@example.com", "name@", "two@@example.com", "a b@example.com"]) {
      expect([bad, emailProblem(bad)]).toEqual([bad, "invalid"]);
    }
  });
  it("accepts ordinary addresses, with spaces around them", () => {
    for (const ok of ["name@example.com", " Name.Last+tag@sub.example.co.jp "]) {
      expect([ok, emailProblem(ok)]).toEqual([ok, null]);
    }
  });
  it("names a translation key per problem", () => {
    expect(emailProblemKey("required")).toBe("validation.emailRequired");
    expect(emailProblemKey("invalid")).toBe("validation.emailInvalid");
  });
});
