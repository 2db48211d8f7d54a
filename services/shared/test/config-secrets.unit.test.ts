// Secrets in the services' configuration: template placeholders are refused at start, and every
// credential can come from a file (<NAME>_FILE: compose secrets, Kubernetes Secret volumes).
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, isPlaceholderSecret, parseConfig, readJwtSecret } from "@kikitori/shared/server";
import { billingEnv } from "../../billing/src/config.ts";
import { gatewayEnv } from "../../gateway/src/config.ts";
import { textWorkerEnv } from "../../text-worker/src/config.ts";
import { transcriptionWorkerEnv } from "../../transcription-worker/src/config.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-secrets-"));
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};
const REAL = "a-real-secret-of-more-than-32-characters-0123";
/** The value k8s/overlays/dev/secret.yaml ships (39 characters: long enough for the length check). */
const PLACEHOLDER = "CHANGE-ME-CHANGE-ME-CHANGE-ME-CHANGE-ME";

describe("placeholder secrets", () => {
  it("recognises CHANGE-ME in any spelling", () => {
    for (const v of [
      PLACEHOLDER,
      "change-me",
      "postgresql://kikitori:CHANGE-ME@postgres/kikitori",
      "changeme",
      "CHANGE_ME",
    ]) {
      expect({ v, placeholder: isPlaceholderSecret(v) }).toEqual({ v, placeholder: true });
    }
    for (const v of [undefined, "", REAL, "not-needed"]) expect(isPlaceholderSecret(v)).toBe(false);
  });

  it("the gateway refuses to start with the template JWT secret, given directly or in a file", () => {
    expect(() => parseConfig("gateway", gatewayEnv, { JWT_SECRET: PLACEHOLDER })).toThrow(
      /JWT_SECRET: still the template placeholder/,
    );
    expect(() =>
      parseConfig("gateway", gatewayEnv, { JWT_SECRET_FILE: file("jwt-placeholder", `${PLACEHOLDER}\n`) }),
    ).toThrow(/JWT_SECRET: still the template placeholder/);
    expect(readJwtSecret({ JWT_SECRET: PLACEHOLDER }).error).toMatch(/placeholder/);
    expect(parseConfig("gateway", gatewayEnv, { JWT_SECRET: REAL }).JWT_SECRET).toBe(REAL);
  });

  it("billing refuses the template JWT secret it would derive the internal token from", () => {
    expect(() => parseConfig("billing", billingEnv, { JWT_SECRET: PLACEHOLDER })).toThrow(/JWT_SECRET/);
  });

  it.each([
    ["transcription-worker", transcriptionWorkerEnv],
    ["text-worker", textWorkerEnv],
  ] as const)("%s refuses a database URL or S3 key that is still the placeholder, naming each once", (name, schema) => {
    let err: unknown;
    try {
      parseConfig(name, schema, {
        DATABASE_URL: "postgresql://kikitori:CHANGE-ME@postgres:5432/kikitori",
        S3_SECRET_KEY: "CHANGE-ME",
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/DATABASE_URL: still the template placeholder/);
    expect(msg).toMatch(/S3_SECRET_KEY: still the template placeholder/);
    expect(msg.match(/placeholder/g)).toHaveLength(2);
  });
});

describe("<NAME>_FILE", () => {
  it("reads credentials from files (trimmed), a value set directly wins", () => {
    const cfg = parseConfig("text-worker", textWorkerEnv, {
      DATABASE_URL_FILE: file("db", "postgresql://u:p@db.internal:5432/kikitori\n"),
      S3_SECRET_KEY_FILE: file("s3", "s3-secret\n"),
      OPENAI_API_KEY_FILE: file("openai", "sk-file"),
      OPENAI_API_KEY: "sk-direct",
    });
    expect(cfg.DATABASE_URL).toBe("postgresql://u:p@db.internal:5432/kikitori");
    expect(cfg.S3_SECRET_KEY).toBe("s3-secret");
    expect(cfg.OPENAI_API_KEY).toBe("sk-direct");
  });

  it("billing takes its Stripe keys and internal token from files", () => {
    const cfg = parseConfig("billing", billingEnv, {
      PAYMENT_PROVIDER: "stripe",
      STRIPE_SECRET_KEY_FILE: file("stripe-sk", "sk_test_file"),
      STRIPE_PUBLISHABLE_KEY: "pk_test_x",
      STRIPE_WEBHOOK_SECRET_FILE: file("stripe-wh", "whsec_file"),
      INTERNAL_TOKEN_FILE: file("internal", "internal-token-from-file"),
    });
    expect(cfg.stripe.secretKey).toBe("sk_test_file");
    expect(cfg.stripe.webhookSecret).toBe("whsec_file");
    expect(cfg.internalToken).toBe("internal-token-from-file");
  });

  it("names a file that cannot be read", () => {
    expect(() =>
      parseConfig("transcription-worker", transcriptionWorkerEnv, { DATABASE_URL_FILE: path.join(dir, "missing") }),
    ).toThrow(/DATABASE_URL_FILE: cannot read/);
  });
});
