import { randomUUID } from "node:crypto";
import { createRedis, publishProgress } from "@kikitori/shared/server";
import WebSocket from "ws";
import { insertVerifiedUser } from "../../../tests/support/db.ts";
import { api, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { hashPassword } from "../src/auth/passwords.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

interface Client {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  next: (pred?: (m: any) => boolean, ms?: number) => Promise<any>;
}

function connect(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
    const messages: any[] = [];
    const waiters: Array<() => void> = [];
    ws.on("message", (d) => {
      messages.push(JSON.parse(d.toString()));
      for (const w of waiters.splice(0)) w();
    });
    const closed = new Promise<{ code: number; reason: string }>((res) =>
      ws.on("close", (code, reason) => res({ code, reason: reason.toString() })),
    );
    const next = (pred: (m: any) => boolean = () => true, ms = 3000) =>
      new Promise<any>((res, rej) => {
        const timer = setTimeout(() => rej(new Error("no message")), ms);
        const check = () => {
          const i = messages.findIndex(pred);
          if (i >= 0) {
            clearTimeout(timer);
            res(messages.splice(i, 1)[0]);
          } else waiters.push(check);
        };
        check();
      });
    ws.once("open", () => resolve({ ws, messages, closed, next }));
    ws.once("error", reject);
  });
}

async function authed(uid: string): Promise<Client> {
  const token = await t.gw.signer.sign({ sub: uid, email: `${uid}@example.com`, email_verified: true });
  const c = await connect(t.url);
  c.ws.send(JSON.stringify({ type: "auth", token }));
  expect(await c.next()).toEqual({ type: "ready" });
  return c;
}

it("a worker-side publish reaches the owner's sockets only", async () => {
  const alice = randomUUID();
  const bob = randomUUID();
  const a1 = await authed(alice);
  const a2 = await authed(alice);
  const b = await authed(bob);

  // What a worker does: its own Redis connection, the shared publish helper.
  const worker = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  const jobId = randomUUID();
  const receivers = await publishProgress(worker, t.prefix, {
    userId: alice,
    event: { jobId, status: "Transcription in progress", transcriptionProgress: 42 },
  });
  expect(receivers).toBeGreaterThanOrEqual(1);
  const expected = { jobId, status: "Transcription in progress", transcriptionProgress: 42 };
  expect(await a1.next()).toEqual(expected);
  expect(await a2.next()).toEqual(expected);

  await publishProgress(worker, t.prefix, {
    userId: bob,
    event: { jobId, status: "File uploaded", audioFileUrl: "/api/audio/x" },
  });
  expect(await b.next()).toEqual({ jobId, status: "File uploaded", audioFileUrl: "/api/audio/x" });
  await new Promise((r) => setTimeout(r, 200));
  expect(b.messages).toEqual([]); // bob never saw alice's update
  expect(a1.messages).toEqual([]); // nor alice bob's

  // An invalid envelope is dropped, never forwarded.
  await worker.publish(`${t.prefix}:progress`, JSON.stringify({ userId: alice, event: { status: "Hacked" } }));
  await new Promise((r) => setTimeout(r, 200));
  expect(a1.messages).toEqual([]);
  worker.disconnect();
  for (const c of [a1, a2, b]) c.ws.close();
});

it("closes with 4401 on an invalid token", async () => {
  const c = await connect(t.url);
  c.ws.send(JSON.stringify({ type: "auth", token: "not-a-jwt" }));
  expect((await c.closed).code).toBe(4401);
});

it("closes with 4401 when the first message is not auth", async () => {
  const c = await connect(t.url);
  c.ws.send("hello");
  expect((await c.closed).code).toBe(4401);
});

it("closes with 4401 when no auth arrives within 5 s", async () => {
  const c = await connect(t.url);
  const started = Date.now();
  const { code } = await c.closed;
  expect(code).toBe(4401);
  expect(Date.now() - started).toBeGreaterThanOrEqual(4500);
}, 10_000);

it("answers ping with pong after auth", async () => {
  const c = await authed(randomUUID());
  c.ws.send(JSON.stringify({ type: "ping" }));
  expect(await c.next()).toEqual({ type: "pong" });
  c.ws.close();
});

/** A socket authenticated with `token`. */
async function authedWith(token: string): Promise<Client> {
  const c = await connect(t.url);
  c.ws.send(JSON.stringify({ type: "auth", token }));
  expect(await c.next()).toEqual({ type: "ready" });
  return c;
}

async function twoLogins() {
  const { uid, email } = await insertVerifiedUser(t.db);
  const password = "correct horse battery staple";
  await t.db.user.update({ where: { id: uid }, data: { passwordHash: await hashPassword(password) } });
  const login = async () => (await api(t.url, "POST", "/api/auth/login", { body: { email, password } })).body;
  return { uid, a: await login(), b: await login() };
}

it("logout closes the sockets of that login with 4401, and only those", async () => {
  const { uid, a, b } = await twoLogins();
  const sa = await authedWith(a.idToken);
  const sb = await authedWith(b.idToken);
  expect((await api(t.url, "POST", "/api/auth/logout", { body: { refreshToken: a.refreshToken } })).status).toBe(204);
  expect(await sa.closed).toEqual({ code: 4401, reason: "session ended" });
  // The other login's socket still gets the user's updates.
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  const jobId = randomUUID();
  await publishProgress(redis, t.prefix, {
    userId: uid,
    event: { jobId, status: "Transcription in progress", transcriptionProgress: 10 },
  });
  expect((await sb.next((m) => m.jobId === jobId)).transcriptionProgress).toBe(10);
  redis.disconnect();
  sb.ws.close();
});

it("a refresh token reused after rotation revokes its login and closes its sockets", async () => {
  const { a } = await twoLogins();
  const s = await authedWith(a.idToken);
  const rotated = await t.gw.auth.refresh(a.refreshToken);
  expect(rotated.refreshToken).not.toBe(a.refreshToken);
  // Reuse past the grace window: the family is treated as stolen.
  const row = await t.db.refreshToken.findFirstOrThrow({ where: { rotatedAt: { not: null }, userId: a.user.uid } });
  await t.db.refreshToken.update({ where: { id: row.id }, data: { rotatedAt: new Date(Date.now() - 120_000) } });
  expect((await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: a.refreshToken } })).status).toBe(401);
  expect((await s.closed).code).toBe(4401);
});

it("a socket closes with 4401 when the token it was opened with expires", async () => {
  const uid = randomUUID();
  const ttl = t.gw.signer.idTokenTtlSeconds;
  // Issued so that it expires within about a second.
  const token = await t.gw.signer.sign(
    { sub: uid, email: `${uid}@example.com`, email_verified: true },
    Date.now() - (ttl - 1) * 1000,
  );
  const c = await authedWith(token);
  expect(await c.closed).toEqual({ code: 4401, reason: "token expired" });
});
