// The worker thread's entry: load TypeScript through tsx (an --import flag does not reach a worker's
// first module in Node 20), then the report itself.
import { register } from "tsx/esm/api";

register();
await import("./fidelity-worker.ts");
