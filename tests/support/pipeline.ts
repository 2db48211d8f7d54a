import type { PlanName } from "@kikitori/shared";
import WebSocket from "ws";
import { freePort, type ServiceProcess, startService, waitForStatus } from "../infra/service-process.ts";
import { insertVerifiedUser } from "./db.ts";
import type { TestGateway } from "./gateway.ts";

/** A verified user row and an ID token for it. */
export async function createUser(t: TestGateway, over: { secondsUsed?: number; plan?: PlanName } = {}) {
  const { uid, email } = await insertVerifiedUser(t.db, over);
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  return { uid, email, token };
}

/**
 * Resolves once an accepted job's recording is in the object store: the hand-off after the 202
 * (services/gateway/src/jobs/audio-handoff.ts) has cleared `audio_pending`. Fails after `ms`.
 */
export async function audioStored(t: Pick<TestGateway, "db">, jobId: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const job = await t.db.transcriptionJob.findUnique({ where: { id: jobId }, select: { audioPending: true } });
    if (job && !job.audioPending) return;
    if (Date.now() > deadline) throw new Error(`the recording of job ${jobId} was not stored within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts a worker service as its own process against the test gateway's database, Redis prefix and bucket. */
export async function startWorker(
  t: TestGateway,
  name: "transcription-worker" | "text-worker",
  extra: Record<string, string> = {},
): Promise<ServiceProcess & { port: number }> {
  const port = await freePort();
  const svc = startService(name, {
    ...t.env,
    OPS_PORT: String(port),
    OPS_HOST: "127.0.0.1",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    LOCK_DURATION_MS: "5000",
    STALLED_INTERVAL_MS: "3000",
    ...extra,
  });
  await waitForStatus(`http://127.0.0.1:${port}/healthz`, 200, svc, 30_000);
  return Object.assign(svc, { port });
}

/** A WebSocket of the user that records every progress message. */
export async function listen(t: TestGateway, token: string) {
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/ws`);
  const messages: any[] = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (d) => {
    messages.push(JSON.parse(d.toString()));
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => ws.send(JSON.stringify({ type: "auth", token })));
    ws.once("error", reject);
    const check = () => (messages.some((m) => m.type === "ready") ? resolve() : waiters.push(check));
    check();
  });
  const until = (pred: (m: any) => boolean, ms = 120_000) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out; got ${JSON.stringify(messages.map((m) => m.status ?? m.type))}`)),
        ms,
      );
      const check = () => {
        const m = messages.find(pred);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        } else waiters.push(check);
      };
      check();
    });
  return { ws, messages, until, close: () => ws.close() };
}

export async function upload(
  t: Pick<TestGateway, "url">,
  token: string,
  file: { data: Uint8Array; name: string; type?: string } | null,
  fields: Record<string, string> = { model: "meeting" },
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file)
    form.append(
      "file",
      new Blob([new Uint8Array(file.data)], { type: file.type ?? "application/octet-stream" }),
      file.name,
    );
  const res = await fetch(`${t.url}/api/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}
