// The embedded S3-compatible object store (s3rver behind a Signature V4 check, scripts/lib/embedded-s3.ts)
// used by `npm start` when S3_ENDPOINT is not set; run with `node --import tsx`. Data lives under
// var/s3 and survives restarts. Every request must be signed with S3_ACCESS_KEY / S3_SECRET_KEY (or
// their _FILE twins: `npm start` makes var/s3-access-key and var/s3-secret-key once); anonymous
// requests are refused. Production points S3_ENDPOINT at MinIO or S3.
import { readFileSync } from "node:fs";
import { startEmbeddedS3 } from "./lib/embedded-s3.ts";
import { makePrivateDir, tightenTree } from "./lib/private-files.mjs";

// Everything s3rver writes (objects, their metadata, folders) is the owner's only: 0600 and 0700.
// This process runs nothing else, so its umask is the simplest place to say so.
process.umask(0o077);

const secret = (name) => {
  const v =
    process.env[name] || (process.env[`${name}_FILE`] && readFileSync(process.env[`${name}_FILE`], "utf8").trim());
  if (!v) {
    console.error(`objectstore: ${name} (or ${name}_FILE) is required: anonymous access is not offered`);
    process.exit(1);
  }
  return v;
};

const port = Number(process.env.EMBEDDED_S3_PORT ?? 9000);
const directory = process.env.EMBEDDED_S3_DIR ?? "var/s3";
const bucket = process.env.S3_BUCKET ?? "kikitori";
makePrivateDir(directory);
// Objects stored before this rule existed lose their group and other access too.
tightenTree(directory);
const server = await startEmbeddedS3({
  port,
  address: "127.0.0.1",
  directory,
  buckets: [bucket],
  accessKey: secret("S3_ACCESS_KEY"),
  secretKey: secret("S3_SECRET_KEY"),
});
console.log(
  JSON.stringify({
    level: 30,
    service: "objectstore",
    msg: `s3rver listening on 127.0.0.1:${port} (signed requests only)`,
    directory,
  }),
);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
