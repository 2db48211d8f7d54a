// The embedded object store (s3rver behind a Signature V4 check) refuses anyone without the access key
// and secret: anonymous requests, other keys, s3rver's built-in S3RVER/S3RVER pair and forged or stale
// signatures; the services' signed requests work.
import { randomBytes } from "node:crypto";
import { createObjectStore } from "@kikitori/shared/server";
import { Client } from "minio";

const endpoint = process.env.S3_ENDPOINT!;
const bucket = `b-auth-${randomBytes(4).toString("hex")}`;
const cfg = {
  S3_ENDPOINT: endpoint,
  S3_ACCESS_KEY: process.env.S3_ACCESS_KEY!,
  S3_SECRET_KEY: process.env.S3_SECRET_KEY!,
  S3_BUCKET: bucket,
  S3_REGION: "us-east-1",
};
const store = createObjectStore(cfg);
const key = "users/u1/audio/a.mp3";

beforeAll(async () => {
  await store.ensureBucket();
  await store.put(key, Buffer.from("the owner's audio"), 17, "audio/mpeg");
});

const minioWith = (accessKey: string, secretKey: string) => {
  const u = new URL(endpoint);
  return new Client({ endPoint: u.hostname, port: Number(u.port), useSSL: false, accessKey, secretKey });
};

describe("anonymous requests are refused", () => {
  it.each([
    ["list", "GET", `/${bucket}?list-type=2`],
    ["list buckets", "GET", "/"],
    ["GET an object", "GET", `/${bucket}/${key}`],
    ["HEAD an object", "HEAD", `/${bucket}/${key}`],
    ["PUT an object", "PUT", `/${bucket}/${key}`],
    ["DELETE an object", "DELETE", `/${bucket}/${key}`],
    ["DELETE the bucket", "DELETE", `/${bucket}`],
    ["POST multi-delete", "POST", `/${bucket}?delete`],
  ])("%s", async (_n, method, path) => {
    const res = await fetch(endpoint + path, {
      method,
      body: method === "PUT" || method === "POST" ? "overwritten" : undefined,
    });
    expect(res.status).toBe(403);
    if (method !== "HEAD") expect(await res.text()).toContain("<Code>AccessDenied</Code>");
    // Nothing changed.
    const body = await streamText(await store.get(key));
    expect(body).toBe("the owner's audio");
  });

  it("a presigned-looking query or a V2 header is refused too", async () => {
    const q = await fetch(`${endpoint}/${bucket}/${key}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=x`);
    expect(q.status).toBe(403);
    const v2 = await fetch(`${endpoint}/${bucket}/${key}`, { headers: { authorization: "AWS S3RVER:abc" } });
    expect(v2.status).toBe(403);
  });
});

describe("wrong credentials are refused", () => {
  it("s3rver's built-in S3RVER/S3RVER pair", async () => {
    const c = minioWith("S3RVER", "S3RVER");
    await expect(c.getObject(bucket, key)).rejects.toMatchObject({ code: "InvalidAccessKeyId" });
    await expect(c.putObject(bucket, key, Buffer.from("x"))).rejects.toBeTruthy();
  });

  it("the right key with a wrong secret", async () => {
    const c = minioWith(cfg.S3_ACCESS_KEY, "not-the-secret");
    await expect(c.getObject(bucket, key)).rejects.toMatchObject({ code: "SignatureDoesNotMatch" });
    await expect(c.removeObject(bucket, key)).rejects.toBeTruthy();
    const names: string[] = [];
    await expect(
      (async () => {
        for await (const o of c.listObjectsV2(bucket, "", true) as AsyncIterable<{ name: string }>) names.push(o.name);
      })(),
    ).rejects.toBeTruthy();
    expect(names).toEqual([]);
    expect(await store.stat(key)).toMatchObject({ size: 17 });
  });

  it("a signed request replayed against another object", async () => {
    // A GET signed for one key is accepted as sent, refused for another key: the signature covers the path.
    const signed = await captureSignedHeaders(`/${bucket}/${key}`);
    expect((await rawRequest("GET", `/${bucket}/${key}`, signed)).status).toBe(200);
    expect((await rawRequest("GET", `/${bucket}/users/u2/audio/b.mp3`, signed)).status).toBe(403);
    expect((await rawRequest("DELETE", `/${bucket}/${key}`, signed)).status).toBe(403);
    expect(await store.stat(key)).toMatchObject({ size: 17 });
  });
});

describe("signed requests work", () => {
  it("put, stat, get (with a range), list and remove", async () => {
    const k = "users/u3/text/t.json";
    await store.put(k, Buffer.from('{"a":1}'), 7, "application/json");
    expect(await store.stat(k)).toMatchObject({ size: 7 });
    expect(await streamText(await store.get(k))).toBe('{"a":1}');
    expect(await streamText(await store.get(k, { start: 1, end: 3 }))).toBe('"a"');
    await store.ping();
    expect(await store.removePrefix("users/u3/")).toBe(1);
    expect(await store.stat(k)).toBeNull();
  });
});

async function streamText(s: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** The headers the minio client signs for a GET of `path` on the endpoint, captured by a listener. */
async function captureSignedHeaders(path: string): Promise<Record<string, string>> {
  const http = await import("node:http");
  let captured: Record<string, string> = {};
  const server = http.createServer((req, res) => {
    captured = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => ["authorization", "x-amz-date", "x-amz-content-sha256"].includes(k)),
    ) as Record<string, string>;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const c = new Client({
    endPoint: "127.0.0.1",
    port,
    useSSL: false,
    accessKey: cfg.S3_ACCESS_KEY,
    secretKey: cfg.S3_SECRET_KEY,
    region: "us-east-1",
  });
  const [b, ...rest] = path.slice(1).split("/");
  await c.getObject(b, rest.join("/")).catch(() => undefined);
  server.close();
  // Signed for the capture port: sent on with that Host, so only the path (or method) differs.
  return { ...captured, host: `127.0.0.1:${port}` };
}

/** One request with exactly these headers (fetch would set its own Host). */
async function rawRequest(method: string, path: string, headers: Record<string, string>): Promise<{ status: number }> {
  const http = await import("node:http");
  const u = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on("error", reject);
    req.end();
  });
}
