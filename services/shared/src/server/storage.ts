import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { finished, pipeline } from "node:stream/promises";
import { Client } from "minio";

/** The SHA-256 of a file, hex, read as a stream. */
async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** The object-store port. Jobs carry keys; bytes only move through this interface. */
export interface ObjectStore {
  ensureBucket(): Promise<void>;
  put(key: string, body: Readable | Buffer, size: number | undefined, contentType: string): Promise<void>;
  /** Stores a local file of `size` bytes in one PUT, streamed from disk (never the whole file in memory). */
  putFile(key: string, file: string, size: number, contentType: string): Promise<void>;
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  stat(key: string): Promise<{ size: number; contentType?: string } | null>;
  remove(key: string): Promise<void>;
  removePrefix(prefix: string): Promise<number>;
  ping(): Promise<void>;
}

export interface S3Config {
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
}

/** Any S3-compatible endpoint (MinIO, AWS S3, the embedded s3rver) through the `minio` client. */
export class S3ObjectStore implements ObjectStore {
  private readonly client: Client;
  constructor(private readonly cfg: S3Config) {
    const u = new URL(cfg.S3_ENDPOINT);
    this.client = new Client({
      endPoint: u.hostname,
      port: u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80,
      useSSL: u.protocol === "https:",
      accessKey: cfg.S3_ACCESS_KEY,
      secretKey: cfg.S3_SECRET_KEY,
      region: cfg.S3_REGION,
      pathStyle: true,
      // One PUT for anything we store: the embedded s3rver's multipart uploads rewrite the whole object
      // when they complete, slower than one PUT (docs/decisions/0030).
      partSize: 512 * 1024 * 1024,
    });
  }

  async ensureBucket(): Promise<void> {
    const exists = await this.client.bucketExists(this.cfg.S3_BUCKET).catch(() => false);
    if (!exists) {
      try {
        await this.client.makeBucket(this.cfg.S3_BUCKET, this.cfg.S3_REGION);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== "BucketAlreadyOwnedByYou" && code !== "BucketAlreadyExists") throw err;
      }
    }
  }

  async put(key: string, body: Readable | Buffer, size: number | undefined, contentType: string): Promise<void> {
    await this.client.putObject(this.cfg.S3_BUCKET, key, body, size, { "Content-Type": contentType });
  }

  async putFile(key: string, file: string, size: number, contentType: string): Promise<void> {
    // putObject reads a body up to its part size into memory, and sends larger ones as a multipart
    // upload (slow on s3rver): a recording of a paid plan (up to 2 GiB) goes as one streamed PUT,
    // its payload hash computed from the file first (over https the payload is left unsigned, as
    // putObject does).
    const https = new URL(this.cfg.S3_ENDPOINT).protocol === "https:";
    const sha256 = https ? "" : await sha256OfFile(file);
    const res = await this.client.makeRequestStreamAsync(
      {
        method: "PUT",
        bucketName: this.cfg.S3_BUCKET,
        objectName: key,
        headers: { "Content-Length": String(size), "Content-Type": contentType },
      },
      createReadStream(file),
      sha256,
      [200],
      this.cfg.S3_REGION,
    );
    res.resume();
    await finished(res);
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    if (range) {
      return this.client.getPartialObject(this.cfg.S3_BUCKET, key, range.start, range.end - range.start + 1);
    }
    return this.client.getObject(this.cfg.S3_BUCKET, key);
  }

  async stat(key: string): Promise<{ size: number; contentType?: string } | null> {
    try {
      const s = await this.client.statObject(this.cfg.S3_BUCKET, key);
      return { size: s.size, contentType: s.metaData?.["content-type"] };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "NotFound" || code === "NoSuchKey") return null;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.removeObject(this.cfg.S3_BUCKET, key);
  }

  async removePrefix(prefix: string): Promise<number> {
    const keys: string[] = [];
    const stream = this.client.listObjectsV2(this.cfg.S3_BUCKET, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) keys.push(item.name);
    }
    for (const k of keys) await this.client.removeObject(this.cfg.S3_BUCKET, k);
    return keys.length;
  }

  async ping(): Promise<void> {
    const ok = await this.client.bucketExists(this.cfg.S3_BUCKET);
    if (!ok) throw new Error(`bucket ${this.cfg.S3_BUCKET} does not exist`);
  }
}

export function createObjectStore(cfg: S3Config): ObjectStore {
  return new S3ObjectStore(cfg);
}
