// @ts-check
// Child process of vad.ts (plain JS, so a bare `node` runs it: no TypeScript loader needed in
// production, under tsx or under jest). Runs Silero VAD (sherpa-onnx-node) over a 16 kHz mono
// 16-bit PCM WAV read in blocks and fed window by window, then sends the speech spans over IPC:
// { spans: [[startSample, endSample], …], samples } or { error }. A separate process rather than a
// worker thread because sherpa-onnx ends the whole process (exit/abort) on some model or
// config errors, and so that the parent can always stop it with SIGKILL.
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import sherpa from "sherpa-onnx-node";

const RATE = 16000;
/** Samples per VAD call: sherpa ORs the speech flag over all windows of one call, so one window each. */
const WINDOW = 512;
/** Samples read from the file at a time (8 s). */
const BLOCK = WINDOW * 250;

/**
 * Where the samples are: RIFF/RF64 chunks walked in order (ffmpeg puts a LIST chunk before `data`).
 * A `data` size of 0 or 0xFFFFFFFF (streamed or RF64 output) or past the end means "to the end".
 * @param {number} fd
 * @returns {{ offset: number; bytes: number }}
 */
function locateSamples(fd) {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(40);
  const read = (/** @type {number} */ n, /** @type {number} */ pos) => head.subarray(0, readSync(fd, head, 0, n, pos));
  const riff = read(12, 0);
  if (
    riff.length < 12 ||
    !["RIFF", "RF64"].includes(riff.toString("latin1", 0, 4)) ||
    riff.toString("latin1", 8, 12) !== "WAVE"
  ) {
    throw new Error("not a WAV file (no RIFF/WAVE header)");
  }
  let fmtOk = false;
  for (let pos = 12; pos + 8 <= size; ) {
    const h = read(8, pos);
    const id = h.toString("latin1", 0, 4);
    const len = h.readUInt32LE(4);
    const body = pos + 8;
    if (id === "fmt ") {
      const f = read(Math.min(len, 40), body);
      const format = f.readUInt16LE(0);
      const pcm = format === 1 || (format === 0xfffe && f.length >= 26 && f.readUInt16LE(24) === 1);
      const [channels, rate, bits] = [f.readUInt16LE(2), f.readUInt32LE(4), f.readUInt16LE(14)];
      if (!pcm || channels !== 1 || rate !== RATE || bits !== 16) {
        throw new Error(
          `expected 16 kHz mono 16-bit PCM WAV, got format ${format}, ${channels} channel(s), ${rate} Hz, ${bits} bit`,
        );
      }
      fmtOk = true;
    } else if (id === "data") {
      if (!fmtOk) throw new Error("WAV data chunk before its fmt chunk");
      const bytes = len === 0 || len === 0xffffffff || body + len > size ? size - body : len;
      return { offset: body, bytes: bytes - (bytes % 2) };
    }
    pos = body + len + (len % 2);
  }
  throw new Error("WAV file has no data chunk");
}

/** @param {{ wavPath: string; model: string; threshold: number; minSilenceSeconds: number; minSpeechSeconds: number; maxSpeechSeconds: number }} cfg */
async function run(cfg) {
  // sherpa-onnx does not throw on a missing model: it logs and returns a dead detector.
  if (!existsSync(cfg.model)) throw new Error(`VAD model not found: ${cfg.model}`);
  const fd = openSync(cfg.wavPath, "r");
  try {
    const { offset, bytes } = locateSamples(fd);
    const vad = new sherpa.Vad(
      {
        sileroVad: {
          model: cfg.model,
          threshold: cfg.threshold,
          minSilenceDuration: cfg.minSilenceSeconds,
          minSpeechDuration: cfg.minSpeechSeconds,
          maxSpeechDuration: cfg.maxSpeechSeconds,
          windowSize: WINDOW,
        },
        sampleRate: RATE,
        numThreads: 1,
        debug: 0,
      },
      Math.max(60, 3 * cfg.maxSpeechSeconds),
    );
    /** @type {Array<[number, number]>} */
    const spans = [];
    const drain = () => {
      for (; !vad.isEmpty(); vad.pop()) {
        const seg = vad.front(false);
        spans.push([seg.start, seg.start + seg.samples.length]);
      }
    };
    // sherpa copies the whole open segment on every call (quadratic) and only shortens it past
    // maxSpeech when the speech probability dips below 0.9: cut anything twice as long here.
    const hardMax = 2 * cfg.maxSpeechSeconds * RATE;
    const lookBack = 2 * WINDOW + cfg.minSpeechSeconds * RATE; // how far sherpa dates a span's start back
    let speechSince = -1;
    const raw = new ArrayBuffer(BLOCK * 2);
    const int16 = new Int16Array(raw); // WAV is little-endian, like every platform Node runs on here
    const float = new Float32Array(BLOCK);
    let fed = 0;
    for (let done = 0; done < bytes; ) {
      const got = readSync(fd, new Uint8Array(raw), 0, Math.min(raw.byteLength, bytes - done), offset + done);
      if (got <= 0) break;
      done += got;
      const n = got >> 1;
      for (let i = 0; i < n; i++) float[i] = int16[i] / 32768;
      for (let k = 0; k < n; k += WINDOW) {
        const w = float.subarray(k, Math.min(n, k + WINDOW));
        vad.acceptWaveform(w);
        fed += w.length;
        if (!vad.isDetected()) speechSince = -1;
        else if (speechSince < 0) speechSince = fed - lookBack;
        else if (fed - speechSince > hardMax) {
          vad.flush();
          speechSince = fed;
        }
        drain();
      }
      await new Promise((r) => setImmediate(r)); // lets a closed IPC channel (parent gone) end us
    }
    vad.flush();
    drain();
    return { spans, samples: fed };
  } finally {
    closeSync(fd);
  }
}

const orphaned = () => process.exit(2);
process.on("disconnect", orphaned);
const send = (/** @type {unknown} */ msg) =>
  new Promise((resolve) =>
    process.send ? process.send(msg, undefined, {}, () => resolve(undefined)) : resolve(undefined),
  );
try {
  await send(await run(JSON.parse(process.argv[2] ?? "{}")));
  process.exitCode = 0;
} catch (err) {
  await send({ error: err instanceof Error ? err.message : String(err) });
  process.exitCode = 1;
}
process.off("disconnect", orphaned);
process.disconnect?.();
