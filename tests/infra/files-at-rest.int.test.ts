// Files at rest under var/ are the owner's only (0700 folders, 0600 files): the embedded object
// store's data as `npm start` runs it, the mail outbox (reset and verification links) and var/ itself.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLogger, createMailer } from "@kikitori/shared/server";
import { makePrivateDir } from "../../scripts/lib/private-files.mjs";
import { openToOthers, startObjectStoreProcess } from "../support/files-at-rest.ts";

let dir: string;
const umask = process.umask(0o022); // the usual umask, under which files would be 0644
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-files-"));
});
afterAll(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

it("the embedded object store writes objects no other user can read, and tightens older ones", async () => {
  const s3dir = path.join(dir, "s3");
  // Data written before the rule (as an older run left it): readable by everyone.
  mkdirSync(path.join(s3dir, "old"), { recursive: true, mode: 0o755 });
  writeFileSync(path.join(s3dir, "old", "object"), "x", { mode: 0o644 });
  const { store, stop } = await startObjectStoreProcess(s3dir);
  try {
    await store.ensureBucket();
    await store.put("users/u1/audio/a.mp3", Buffer.from("the owner's audio"), 17, "audio/mpeg");
    expect(await store.stat("users/u1/audio/a.mp3")).toMatchObject({ size: 17 });
  } finally {
    await stop();
  }
  expect(openToOthers(s3dir)).toEqual([]);
});

it("the mail outbox and its messages are the owner's only", async () => {
  const mailDir = path.join(dir, "mail");
  const mailer = createMailer({ MAIL_DIR: mailDir, MAIL_FROM: "app@example.com" }, createLogger("t", "silent"));
  await mailer.send({ to: "a@example.com", subject: "s", text: "reset link", html: "<p>x</p>", link: "http://x" });
  expect(openToOthers(mailDir)).toEqual([]);
  await mailer.close();
});

it("var/ is made 0700 even when it exists with wider access", () => {
  const v = path.join(dir, "var");
  mkdirSync(v, { mode: 0o755 });
  makePrivateDir(v);
  expect((statSync(v).mode & 0o777).toString(8)).toBe("700");
});
