// The embedded S3-compatible object store (s3rver) used by `npm start` when S3_ENDPOINT is not set.
// Data lives under var/s3 and survives restarts. Production points S3_ENDPOINT at MinIO or S3.
import { mkdirSync } from "node:fs";
import S3rver from "s3rver";

const port = Number(process.env.EMBEDDED_S3_PORT ?? 9000);
const directory = process.env.EMBEDDED_S3_DIR ?? "var/s3";
const bucket = process.env.S3_BUCKET ?? "kikitori";
mkdirSync(directory, { recursive: true });
const server = new S3rver({
  port,
  address: "127.0.0.1",
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
await server.run();
console.log(
  JSON.stringify({ level: 30, service: "objectstore", msg: `s3rver listening on 127.0.0.1:${port}`, directory }),
);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
