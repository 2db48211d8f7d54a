// Runs one fidelity report in a worker thread (see fidelity.ts): aligning a long interview to its
// transcript takes a few hundred milliseconds of CPU, which must not stall the gateway's event loop.
import { parentPort, workerData } from "node:worker_threads";
import { fidelityReport } from "@kikitori/shared";

const { raw, corrected, options } = workerData as {
  raw: string;
  corrected: string | null;
  options: Parameters<typeof fidelityReport>[2];
};
parentPort?.postMessage(fidelityReport(raw, corrected, options));
