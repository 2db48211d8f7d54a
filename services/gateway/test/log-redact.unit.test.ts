import { Writable } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import { createLogger } from "@kikitori/shared/server";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { redactUrl, requestLogSerializers } from "../src/lib/log-redact.ts";

const TOKEN = "mFoClHCMpThzfzeNTskdNtsr0ddIAoxtUcyixVTuiz8";

describe("redactUrl", () => {
  it.each([
    [`/api/shared/${TOKEN}`, "/api/shared/[redacted]"],
    [
      `/api/shared/${TOKEN}/audio?exp=1790000000&sig=abc-_`,
      "/api/shared/[redacted]/audio?exp=1790000000&sig=[redacted]",
    ],
    [`/ja/shared/${TOKEN}?lng=en`, "/ja/shared/[redacted]?lng=en"],
    ["/en/password-reset/confirm?token=abc&x=1", "/en/password-reset/confirm?token=[redacted]&x=1"],
    ["/api/transcriptions/3f2a/shares", "/api/transcriptions/3f2a/shares"],
    ["/en/summary?q=token", "/en/summary?q=token"],
  ])("%s → %s", (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

it("keeps a share token out of the gateway's request log lines", async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger("gateway-test", "info", sink);
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: requestLogSerializers }) as FastifyBaseLogger,
  });
  app.get("/api/shared/:token", async () => ({ ok: true }));
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  expect((await fetch(`${base}/api/shared/${TOKEN}`)).status).toBe(200);
  await app.close();
  const incoming = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "incoming request");
  expect(incoming.req).toMatchObject({ method: "GET", url: "/api/shared/[redacted]" });
  expect(lines.join("\n")).not.toContain(TOKEN);
});
