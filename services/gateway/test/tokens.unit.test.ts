// The ID token's verification (services/gateway/src/auth/tokens.ts): verifyHs256 checks synchronously
// what jose's jwtVerify checked before (HS256 only, our issuer and audience, expiry, not-before), so a
// token jose accepts is accepted and every altered or foreign one is refused, as 401.
import { createHmac } from "node:crypto";
import { SignJWT } from "jose";
import { TokenSigner, verifyHs256 } from "../src/auth/tokens.ts";

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";
const KEY = new TextEncoder().encode(SECRET);
const now = () => Math.floor(Date.now() / 1000);

/** A token as jose signs it, with our claims unless overridden. */
async function joseToken(
  over: { alg?: string; iss?: string; aud?: string | string[]; exp?: number; nbf?: number; key?: Uint8Array } = {},
) {
  const jwt = new SignJWT({ email: "a@example.com", email_verified: true, sid: "s1", iat_ms: Date.now() })
    .setProtectedHeader({ alg: over.alg ?? "HS256" })
    .setSubject("user-1")
    .setIssuer(over.iss ?? "kikitori")
    .setAudience(over.aud ?? "kikitori-api")
    .setIssuedAt()
    .setExpirationTime(over.exp ?? now() + 600);
  if (over.nbf !== undefined) jwt.setNotBefore(over.nbf);
  return jwt.sign(over.key ?? KEY);
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/** A token signed by hand with our key: any header and payload. */
const signed = (payload: unknown, header: Record<string, unknown> = { alg: "HS256" }) => {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac("sha256", KEY).update(input).digest("base64url")}`;
};

it("accepts what the signer signs and reads its claims", async () => {
  const signer = new TokenSigner(SECRET, 600);
  const token = await signer.sign({ sub: "u-9", email: "z@example.com", email_verified: true, sid: "fam-1" });
  const claims = await signer.verify(token);
  expect(claims).toEqual({
    sub: "u-9",
    email: "z@example.com",
    email_verified: true,
    sid: "fam-1",
    expiresAtMs: expect.any(Number),
  });
  expect(claims.expiresAtMs).toBeGreaterThan(Date.now() + 590_000);
  expect(signer.verifySignature(token).issuedAtMs).toBeGreaterThan(Date.now() - 5000);
});

it("accepts a token jose signed with our claims, with the audience as a list too", async () => {
  expect(verifyHs256(await joseToken(), KEY, now()).sub).toBe("user-1");
  expect(verifyHs256(await joseToken({ aud: ["other", "kikitori-api"] }), KEY, now()).sub).toBe("user-1");
  expect(verifyHs256(await joseToken({ nbf: now() - 5 }), KEY, now()).sub).toBe("user-1");
});

it("refuses an expired token as TOKEN_EXPIRED, at the second it expires", async () => {
  const exp = now() + 100;
  const token = await joseToken({ exp });
  expect(() => verifyHs256(token, KEY, exp - 1)).not.toThrow();
  expect(() => verifyHs256(token, KEY, exp)).toThrow(expect.objectContaining({ code: "TOKEN_EXPIRED" }));
});

it("refuses altered, foreign and malformed tokens as UNAUTHENTICATED", async () => {
  const good = await joseToken();
  const [h, p, s] = good.split(".");
  const payload = JSON.parse(Buffer.from(p, "base64url").toString());
  const unsigned = (header: unknown, body: unknown) => `${b64(header)}.${b64(body)}`;
  const cases: Record<string, string> = {
    "another key": await joseToken({ key: new TextEncoder().encode("another-secret-of-at-least-thirty-two-chars") }),
    "HS512 with our key": await joseToken({ alg: "HS512" }),
    "alg none": `${unsigned({ alg: "none" }, payload)}.`,
    "alg none with our signature": `${b64({ alg: "none" })}.${p}.${s}`,
    "a changed subject, same signature": `${h}.${b64({ ...payload, sub: "admin" })}.${s}`,
    "a changed header, same signature": `${b64({ alg: "HS256", kid: "x" })}.${p}.${s}`,
    "a cut signature": `${h}.${p}.${s.slice(0, 20)}`,
    "a signature with a bad character": `${h}.${p}.${s.slice(0, -1)}=`,
    "padding in the payload": `${h}.${p}=.${s}`,
    "a critical header, signed with our key": signed(payload, { alg: "HS256", crit: ["x-ext"], "x-ext": 1 }),
    "an unencoded payload header, signed with our key": signed(payload, { alg: "HS256", b64: false, crit: ["b64"] }),
    "another issuer": await joseToken({ iss: "someone-else" }),
    "another audience": await joseToken({ aud: "other-api" }),
    "not yet valid": await joseToken({ nbf: now() + 60 }),
    "two parts": `${h}.${p}`,
    "four parts": `${good}.x`,
    empty: "",
    "not JSON": `${Buffer.from("nope").toString("base64url")}.${p}.${s}`,
  };
  for (const [name, token] of Object.entries(cases)) {
    let caught: unknown;
    try {
      verifyHs256(token, KEY, now());
    } catch (err) {
      caught = err;
    }
    expect([name, caught]).toEqual([name, expect.objectContaining({ code: "UNAUTHENTICATED" })]);
  }
});

it("refuses a token without exp, or with a payload that is not an object, even when signed with our key", async () => {
  const base = { sub: "u", iss: "kikitori", aud: "kikitori-api" };
  expect(verifyHs256(signed({ ...base, exp: now() + 10 }), KEY, now()).sub).toBe("u");
  for (const payload of [base, { ...base, exp: "soon" }, { ...base, exp: now() + 10, iat: "x" }, [base], "text"]) {
    expect(() => verifyHs256(signed(payload), KEY, now())).toThrow(
      expect.objectContaining({ code: "UNAUTHENTICATED" }),
    );
  }
  const noSubject = signed({ iss: "kikitori", aud: "kikitori-api", exp: now() + 10 });
  await expect(new TokenSigner(SECRET, 600).verify(noSubject)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
});
