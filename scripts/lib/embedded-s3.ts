// The embedded S3-compatible object store: s3rver behind a Signature V4 check. s3rver on its own
// answers anonymous requests and takes any V4 signature on trust; here every request must be signed
// with the one access key and secret given (made once by `npm start`, per run by the tests), so
// nobody else on the machine can list, read, overwrite or delete what is stored.
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import S3rver from "s3rver";
import { verifySigV4 } from "../../services/shared/src/server/s3-sigv4.ts";

export interface EmbeddedS3Options {
  port: number;
  address: string;
  directory: string;
  buckets?: string[];
  accessKey: string;
  secretKey: string;
}

export interface EmbeddedS3 {
  port: number;
  close: () => Promise<void>;
}

interface AccountRegistry {
  DUMMY_ACCOUNT: { createKeyPair(k: string, s: string): void; revokeAccessKey(k: string): void };
}

const xmlEscape = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startEmbeddedS3(opts: EmbeddedS3Options): Promise<EmbeddedS3> {
  const creds = { accessKey: opts.accessKey, secretKey: opts.secretKey };
  // s3rver's own key registry: ours becomes its only key (its built-in S3RVER/S3RVER pair is revoked).
  const accounts = createRequire(import.meta.url)("s3rver/lib/models/account.js") as AccountRegistry;
  accounts.DUMMY_ACCOUNT.revokeAccessKey("S3RVER");
  accounts.DUMMY_ACCOUNT.createKeyPair(opts.accessKey, opts.secretKey);

  const s3 = new S3rver({
    silent: true,
    directory: opts.directory,
    configureBuckets: (opts.buckets ?? []).map((name) => ({ name })),
  });
  await s3.configureBuckets();
  const handle = s3.callback();
  const server = http.createServer((req, res) => {
    const refusal = verifySigV4({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers }, creds);
    if (!refusal) return handle(req, res);
    const body =
      req.method === "HEAD"
        ? undefined
        : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${xmlEscape(refusal.message)}</Message></Error>`;
    res.writeHead(403, { "content-type": "application/xml", connection: "close" });
    res.end(body);
    req.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.address, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
