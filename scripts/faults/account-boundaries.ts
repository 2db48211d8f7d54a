// The fault suite's "boundaries" checks on accounts, sessions and stored data: well-formed requests
// that try to cross a boundary rather than malformed ones. Each row is [check, result, ok]; each
// fails on the code before these rules:
//   - a socket outlives neither the logout of its login nor its token's expiry (closed with 4401);
//   - exports of a title with an emoji at the file name's cut answer 200 in all six formats;
//   - deleting the account (or the backend user's data) needs the password, not the token alone;
//   - 30 parallel wrong passwords from one source on one account: at most 10 are checked, and the
//     owner still logs in from elsewhere;
//   - register and the e-mail change answer a taken address like a free one, and mail its owner;
//   - the embedded object store's data and the mail outbox are not readable by other local users;
//   - restores fold like edits, kept versions are bounded in bytes, writes per job are rate limited;
//   - the audio of a deleted backend user answers 4xx, and a request without Host the error shape.
// Run on its own: NODE_ENV=test npx tsx scripts/faults/account-boundaries.ts
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { errorBodySchema } from "@kikitori/shared";
import { createObjectStore } from "@kikitori/shared/server";
import WebSocket from "ws";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import * as workspaceModule from "../../services/gateway/src/workspace/adapters.ts";
import { insertJob, insertVerifiedUser } from "../../tests/support/db.ts";
import { openToOthers, startObjectStoreProcess } from "../../tests/support/files-at-rest.ts";
import { api, startReplica, type TestGateway } from "../../tests/support/gateway.ts";
import { rawHttp } from "../../tests/support/raw-http.ts";

export type BoundaryRow = [string, string, boolean];

const PASSWORD = "boundary password 1";
const FORMATS = ["txt", "md", "docx", "srt", "vtt", "json"] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A verified user with a known password, and an ID token for it. */
async function newUser(t: TestGateway) {
  const { uid, email } = await insertVerifiedUser(t.db);
  await t.db.user.update({ where: { id: uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  return { uid, email, token: await t.gw.signer.sign({ sub: uid, email, email_verified: true }) };
}

/** A socket authenticated with `token`; `closed` settles with the close code, or "open" after `ms`. */
async function socketWith(base: string, token: string) {
  const ws = new WebSocket(`${base.replace("http", "ws")}/ws`);
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => ws.send(JSON.stringify({ type: "auth", token })));
    ws.once("message", () => resolve());
    ws.once("error", reject);
  });
  return {
    closedWithin: (ms: number) => Promise.race([closed, sleep(ms).then(() => "open" as const)]),
    close: () => ws.close(),
  };
}

const isErrorShape = (body: string) => {
  try {
    return errorBodySchema.safeParse(JSON.parse(body)).success;
  } catch {
    return false;
  }
};

/** A gateway on `t`'s database, Redis prefix and bucket with the production login limits. */
const startStrictGateway = (t: TestGateway, mailDir: string) =>
  startReplica(
    t,
    {
      TRUST_PROXY: "true",
      LOGIN_FAILURES_PER_SOURCE: "20",
      LOGIN_FAILURES_PER_ACCOUNT_SOURCE: "10",
      LOGIN_SLOWDOWN_AFTER: "5",
      LOGIN_SLOWDOWN_MAX_MS: "300",
      MAIL_DIR: mailDir,
    },
    "gateway-boundaries",
  );

/** Waits (at most `ms`) for a mail file to `to` in `dir` whose text matches `re`. */
async function mailTo(dir: string, to: string, re: RegExp, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  const safeTo = to.replace(/[^a-zA-Z0-9@._-]/g, "_");
  while (Date.now() < end) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(`-${safeTo}.eml`));
    } catch {}
    if (names.some((n) => re.test(readFileSync(path.join(dir, n), "utf8")))) return true;
    await sleep(100);
  }
  return false;
}

export async function runAccountBoundaries(t: TestGateway): Promise<Array<[string, string, boolean]>> {
  const rows: BoundaryRow[] = [];
  const row = (name: string, result: string, ok: boolean) => rows.push([name, result, ok]);
  const attempt = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      row(name, `threw: ${(err as Error).message.slice(0, 160)}`, false);
    }
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-faults-account-"));
  const mailDir = path.join(dir, "mail");
  const strict = await startStrictGateway(t, mailDir);
  try {
    // ------------------------------------------------------------- sockets end with their session
    await attempt("logout closes that login's sockets (4401)", async () => {
      const u = await newUser(t);
      const login = await api(t.url, "POST", "/api/auth/login", { body: { email: u.email, password: PASSWORD } });
      const s = await socketWith(t.url, login.body.idToken);
      await api(t.url, "POST", "/api/auth/logout", { body: { refreshToken: login.body.refreshToken } });
      const code = await s.closedWithin(5000);
      s.close();
      row("logout closes that login's sockets (4401)", `socket after logout: ${code}`, code === 4401);
    });
    await attempt("a socket closes when its token expires (4401)", async () => {
      const u = await newUser(t);
      const ttl = t.gw.signer.idTokenTtlSeconds;
      const token = await t.gw.signer.sign(
        { sub: u.uid, email: u.email, email_verified: true },
        Date.now() - (ttl - 1) * 1000,
      );
      const s = await socketWith(t.url, token);
      const code = await s.closedWithin(5000);
      s.close();
      row("a socket closes when its token expires (4401)", `socket 5 s after expiry: ${code}`, code === 4401);
    });

    // ------------------------------------------------------------- exports of an emoji at the cut
    await attempt("exports: emoji at the file name's cut", async () => {
      const u = await newUser(t);
      const jobId = await insertJob(t.db, u.uid, {
        status: "completed",
        title: `${"a".repeat(119)}😀 and more`,
        transcription: "Hello there.",
        segments: [{ start: 0, end: 1, text: "Hello there.", speaker: 0 }],
        rewrittenText: "Anna: Hello there.",
      });
      const statuses: string[] = [];
      for (const format of FORMATS) {
        const res = await fetch(`${t.url}/api/transcriptions/${jobId}/export?format=${format}&text=interview`, {
          headers: { authorization: `Bearer ${u.token}` },
        });
        await res.arrayBuffer();
        statuses.push(`${format} ${res.status}`);
      }
      row(
        "exports: emoji at the file name's cut (six formats)",
        statuses.join(", "),
        statuses.every((s) => s.endsWith(" 200")),
      );
    });

    // ------------------------------------------------------------- deletion needs the password
    await attempt("account deletion needs the password", async () => {
      const u = await newUser(t);
      const bare = await api(t.url, "DELETE", "/api/auth/account", { token: u.token });
      const wrong = await api(t.url, "DELETE", "/api/auth/account", { token: u.token, body: { password: "nope" } });
      const still = await t.db.user.count({ where: { id: u.uid } });
      const right = await api(t.url, "DELETE", "/api/auth/account", { token: u.token, body: { password: PASSWORD } });
      row(
        "DELETE /api/auth/account: token alone / wrong password / right password",
        `${bare.status} / ${wrong.status} / ${right.status}, account kept until then: ${still === 1}`,
        bare.status === 400 && wrong.status === 403 && still === 1 && right.status === 204,
      );
    });
    await attempt("backend-user deletion needs the password", async () => {
      const u = await newUser(t);
      const bare = await api(t.url, "DELETE", `/api/auth/users/${u.uid}`, { token: u.token });
      const wrong = await api(t.url, "DELETE", `/api/auth/users/${u.uid}`, {
        token: u.token,
        body: { password: "nope" },
      });
      row(
        "DELETE /api/auth/users/{uid}: token alone / wrong password",
        `${bare.status} / ${wrong.status}`,
        bare.status === 400 && wrong.status === 403,
      );
    });

    // ------------------------------------------------------------- throttle before checking
    await attempt("30 parallel wrong passwords", async () => {
      const u = await newUser(t);
      const source = `203.0.113.${1 + Math.floor(Math.random() * 200)}`;
      const answers = await Promise.all(
        Array.from({ length: 30 }, () =>
          api(strict.url, "POST", "/api/auth/login", {
            body: { email: u.email, password: "wrong guess" },
            headers: { "x-forwarded-for": source },
          }),
        ),
      );
      const checked = answers.filter((a) => a.status === 401).length;
      const refused = answers.filter((a) => a.status === 429).length;
      const owner = await api(strict.url, "POST", "/api/auth/login", {
        body: { email: u.email, password: PASSWORD },
        headers: { "x-forwarded-for": "198.51.100.77" },
      });
      row(
        "30 parallel wrong passwords, one source, one account",
        `${checked} checked (401), ${refused} refused (429); owner elsewhere: ${owner.status}`,
        checked <= 10 && checked + refused === 30 && owner.status === 200,
      );
    });

    // ------------------------------------------------------------- no account enumeration
    await attempt("register: taken address", async () => {
      const u = await newUser(t);
      const fresh = await api(strict.url, "POST", "/api/auth/register", {
        body: { email: `new-${randomUUID()}@example.com`, password: PASSWORD },
      });
      const taken = await api(strict.url, "POST", "/api/auth/register", {
        body: { email: u.email, password: PASSWORD },
      });
      const same = fresh.status === taken.status && JSON.stringify(fresh.body) === JSON.stringify(taken.body);
      const mailed = await mailTo(mailDir, u.email, /tried to register/);
      row(
        "register: a taken address answers like a new one, its owner is mailed",
        `new ${fresh.status}, taken ${taken.status}, same body: ${same}, owner mailed: ${mailed}`,
        taken.status === 202 && same && mailed,
      );
    });
    await attempt("e-mail change to a taken address", async () => {
      const a = await newUser(t);
      const b = await newUser(t);
      const free = `free-${randomUUID()}@example.com`;
      const toFree = await api(strict.url, "POST", "/api/auth/account/email", {
        token: a.token,
        body: { password: PASSWORD, newEmail: free },
      });
      const toTaken = await api(strict.url, "POST", "/api/auth/account/email", {
        token: a.token,
        body: { password: PASSWORD, newEmail: b.email },
      });
      const mailed = await mailTo(mailDir, b.email, /tried to use your address/);
      row(
        "e-mail change: a taken address answers like a free one, its owner is mailed",
        `free ${toFree.status}, taken ${toTaken.status}, owner mailed: ${mailed}`,
        toFree.status === 202 && toTaken.status === 202 && mailed,
      );
    });

    // ------------------------------------------------------------- files at rest
    await attempt("object store files at rest", async () => {
      const s3dir = path.join(dir, "s3");
      const { store, stop } = await startObjectStoreProcess(s3dir);
      try {
        await store.ensureBucket();
        await store.put("users/u/audio/a.mp3", randomBytes(64), 64, "audio/mpeg");
      } finally {
        await stop();
      }
      const open = openToOthers(s3dir);
      row(
        "stored audio (embedded object store) not readable by other users",
        open.length ? `${open.length} open: ${open.slice(0, 3).join(", ")}` : "all 0700/0600",
        open.length === 0,
      );
    });
    await attempt("mail outbox at rest", async () => {
      const open = openToOthers(mailDir);
      const files = readdirSync(mailDir).length;
      row(
        "mail outbox (reset and verify links) not readable by other users",
        open.length ? `${open.length} open: ${open.slice(0, 3).join(", ")}` : `${files} mails, all 0700/0600`,
        open.length === 0 && files > 0,
      );
    });

    // ------------------------------------------------------------- storage amplification
    await attempt("restores fold", async () => {
      const u = await newUser(t);
      const jobId = await insertJob(t.db, u.uid, { status: "completed", rewrittenText: "A: original" });
      let v = (
        await api(t.url, "PATCH", `/api/transcriptions/${jobId}`, {
          token: u.token,
          body: { version: 1, rewrittenText: "A: edited" },
        })
      ).body.version as number;
      for (let i = 0; i < 10; i++) {
        const r = await api(t.url, "POST", `/api/transcriptions/${jobId}/versions/${i % 2 ? 2 : 1}/restore`, {
          token: u.token,
          body: { version: v },
        });
        v = r.body.version ?? v;
      }
      const kept = await t.db.transcriptVersion.count({ where: { jobId } });
      row("10 restores in a row: versions kept", `${kept} (job at version ${v})`, kept <= 3 && v === 12);
    });
    await attempt("versions bounded in bytes", async () => {
      const u = await newUser(t);
      const jobId = await insertJob(t.db, u.uid, { status: "completed", rewrittenText: "A: original" });
      let clock = Date.now();
      const ws = workspaceModule.createWorkspace({
        db: t.db,
        now: () => new Date(clock),
        limits: { keptVersionBytes: 100_000 },
      });
      for (let i = 0; i < 20; i++) {
        clock += 10 * 60_000;
        const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
        await ws.edit(job, { version: job.version, rewrittenText: `${i} ${"x".repeat(20_000)}` });
      }
      const rows = await t.db.transcriptVersion.findMany({ where: { jobId } });
      const bytes = rows
        .filter((r) => r.kind !== "original")
        .reduce((n, r) => n + Buffer.byteLength(r.rewrittenText ?? ""), 0);
      const original = rows.some((r) => r.kind === "original");
      row(
        "20 edits of 20 kB with a 100 kB budget: version text kept",
        `${bytes} bytes in ${rows.length} versions, original kept: ${original}`,
        bytes <= 100_000 && original,
      );
    });
    await attempt("writes per job rate limited", async () => {
      // The limit where there is one (before it there was none: 200 writes then).
      const limit = (workspaceModule as { WRITES_PER_JOB_PER_MINUTE?: number }).WRITES_PER_JOB_PER_MINUTE ?? 180;
      const tries = limit + 20;
      const u = await newUser(t);
      const jobId = await insertJob(t.db, u.uid, { status: "completed", rewrittenText: "A: original" });
      let v = 1;
      let first429 = 0;
      let retryAfter: string | null = null;
      let shape = false;
      for (let i = 1; i <= tries && !first429; i++) {
        const r = await api(t.url, "PATCH", `/api/transcriptions/${jobId}`, {
          token: u.token,
          body: { version: v, title: `t${i}` },
        });
        if (r.status === 429) {
          first429 = i;
          retryAfter = r.headers.get("retry-after");
          shape = errorBodySchema.safeParse(r.body).success;
        } else v = r.body.version;
      }
      row(
        `${tries} PATCHes of one job in a row`,
        first429 ? `429 from write ${first429}, Retry-After ${retryAfter}, error shape: ${shape}` : "never limited",
        first429 === limit + 1 && Number(retryAfter) > 0 && shape,
      );
    });

    // ------------------------------------------------------------- 4xx, not 500
    await attempt("audio after backend-user delete", async () => {
      const u = await newUser(t);
      const jobId = await insertJob(t.db, u.uid, { status: "completed", audioBytes: 5 });
      const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
      const store = createObjectStore(loadGatewayConfig(t.env));
      await store.put(job.audioKey, Buffer.from("audio"), 5, "audio/mpeg");
      const before = await api(t.url, "GET", `/api/audio/${jobId}`, { token: u.token });
      await api(t.url, "DELETE", `/api/auth/users/${u.uid}`, { token: u.token, body: { password: PASSWORD } });
      const after = await api(t.url, "GET", `/api/audio/${jobId}`, { token: u.token });
      row(
        "GET /api/audio after DELETE /api/auth/users/{own uid}",
        `before ${before.status}, after ${after.status}`,
        before.status === 200 && (after.status === 404 || after.status === 410),
      );
    });
    await attempt("request without Host", async () => {
      const r = await rawHttp(t.url, "GET /api/auth/account HTTP/1.1\r\nConnection: close\r\n\r\n");
      row(
        "a request without Host",
        `${r.status}, error shape: ${isErrorShape(r.body)}`,
        r.status === 400 && isErrorShape(r.body),
      );
    });
  } finally {
    await strict.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

// Run on its own: an embedded object store and a test gateway of its own, the table, exit code 1 on a failure.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { startEmbeddedS3 } = await import("../lib/embedded-s3.ts");
  const { startTestGateway } = await import("../../tests/support/gateway.ts");
  const s3dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-boundaries-s3-"));
  const creds = { accessKey: `b-${randomBytes(6).toString("hex")}`, secretKey: randomBytes(32).toString("hex") };
  const s3 = await startEmbeddedS3({ port: 0, address: "127.0.0.1", directory: s3dir, ...creds });
  process.env.S3_ENDPOINT = `http://127.0.0.1:${s3.port}`;
  process.env.S3_ACCESS_KEY = creds.accessKey;
  process.env.S3_SECRET_KEY = creds.secretKey;
  process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
  process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
  const t = await startTestGateway();
  let failed = 0;
  try {
    const rows = await runAccountBoundaries(t);
    for (const [name, result, ok] of rows) {
      if (!ok) failed++;
      console.log(`${ok ? "ok  " : "FAIL"}  ${name}: ${result}`);
    }
    console.log(`${rows.length - failed}/${rows.length} account boundary checks passed`);
  } finally {
    await t.close();
    await s3.close();
    rmSync(s3dir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}
