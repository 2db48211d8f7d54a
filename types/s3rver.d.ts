declare module "s3rver" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface S3rverOptions {
    port?: number;
    address?: string;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }
  export default class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<{ address: string; port: number; family: string }>;
    close(): Promise<void>;
    /** Creates the buckets of `configureBuckets` (what run() does before it listens). */
    configureBuckets(): Promise<void>;
    /** The Koa request handler, for a server of one's own. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
