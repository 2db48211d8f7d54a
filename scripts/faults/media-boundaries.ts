// The fault suite's "boundaries" checks on media and quota: well-formed requests that try to cross a
// boundary rather than malformed ones. Each row is [check, result, ok]; each fails on the code before
// the media lock-down and the in-flight quota:
//   - playlists (HLS with absolute and relative paths, ffconcat, SDP, subfile, XML playlists) behind an
//     ID3 tag, a RIFF/WAVE header or an Ogg page header must be refused, never read a server file;
//   - three 15-minute uploads of a free account (30 min) at once over two gateways: two accepted, one 402;
//   - an M4A whose short audio stream is first and long one is the default: the stream charged is the
//     stream the worker decodes, and it decodes no further than what was charged;
//   - live text received over the socket, then the job deleted: the seconds sent are charged.
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createObjectStore, ffmpegPath } from "@kikitori/shared/server";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { decodeToWav } from "../../services/transcription-worker/src/audio.ts";
import { stopService } from "../../tests/infra/service-process.ts";
import type { TestGateway } from "../../tests/support/gateway.ts";
import { audioStored, createUser, listen, startWorker, upload } from "../../tests/support/pipeline.ts";

export type BoundaryRow = [string, string, boolean];

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURE = path.join(ROOT, "tests/fixtures/audio/interview-en.mp3");

/** An upload of `data` as `name` to the gateway at `base` (file type "meeting" unless `fields` say otherwise). */
const post = (base: string, token: string, name: string, data: Uint8Array, fields: Record<string, string> = {}) =>
  upload({ url: base }, token, { data, name }, { model: "meeting", ...fields });

const ffmpeg = (...args: string[]) => execFileSync(ffmpegPath(), ["-v", "error", "-y", ...args]);

/** `second`: another gateway on `t`'s database, Redis prefix and bucket (as two replicas are). */
export async function runMediaBoundaries(t: TestGateway, second: { url: string }): Promise<BoundaryRow[]> {
  const rows: BoundaryRow[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-faults-media-"));
  try {
    // -------------------------------------------------------- playlists behind audio headers
    {
      const u = await createUser(t, { plan: "premium" });
      const target = FIXTURE; // a server file with speech in it
      const rel = `${"../".repeat(12)}${target.replace(/^\//, "")}`;
      const hls = (entry: string) =>
        `#EXTM3U\n#EXT-X-TARGETDURATION:20\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:18.5,\n${entry}\n#EXT-X-ENDLIST\n`;
      const bodies: Array<[string, string]> = [
        ["HLS file:// absolute", hls(`file://${target}`)],
        ["HLS absolute path", hls(target)],
        ["HLS ../ relative path", hls(rel)],
        ["HLS master playlist", `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nfile://${target}\n`],
        ["ffconcat", `ffconcat version 1.0\nfile '${target}'\n`],
        ["SDP", "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\n"],
        ["subfile", `subfile,,start,0,end,0,,:${target}\n`],
        ["ASX playlist", `<asx version="3.0"><entry><ref href="${target}"/></entry></asx>\n`],
      ];
      const headers: Array<[string, Buffer]> = [
        ["ID3", Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0])],
        ["RIFF/WAVE", Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ", "latin1")],
        ["Ogg", Buffer.from("OggS\x00\x02", "latin1")],
        ["EBML (WebM)", Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01])],
      ];
      const outcomes: string[] = [];
      let accepted = 0;
      for (const [, prefix] of headers) {
        for (const [, body] of bodies) {
          const r = await post(t.url, u.token, "interview.mp3", Buffer.concat([prefix, Buffer.from(body)]), {
            language: "en",
          });
          if (r.status === 202) accepted++;
          outcomes.push(`${r.status}`);
        }
      }
      const jobs = await t.db.transcriptionJob.count({ where: { userId: u.uid } });
      const counts = [...new Set(outcomes)].map((s) => `${outcomes.filter((o) => o === s).length}× ${s}`).join(", ");
      rows.push([
        `${bodies.length} playlists behind ${headers.map(([h]) => h).join(", ")}`,
        `${outcomes.length} uploads: ${counts}; jobs created ${jobs}`,
        accepted === 0 && jobs === 0,
      ]);
    }

    // -------------------------------------------------------- in-flight quota over two gateways
    {
      const file = path.join(dir, "fifteen.mp3");
      ffmpeg("-f", "lavfi", "-t", "900", "-i", "sine=f=300:r=8000", "-ac", "1", "-b:a", "8k", file);
      const fifteen = readFileSync(file);
      // Two in flight (accepted, not yet transcribed: no worker runs here), then a third on the other gateway.
      const u = await createUser(t);
      const seq = [
        await post(t.url, u.token, "part-1.mp3", fifteen),
        await post(second.url, u.token, "part-2.mp3", fifteen),
        await post(second.url, u.token, "part-3.mp3", fifteen),
      ].map((r) => r.status);
      // Two at once on two gateways with 20 minutes left: one may win.
      const v = await createUser(t);
      await t.db.user.update({ where: { id: v.uid }, data: { secondsUsed: 600 } });
      const par = (await Promise.all([t.url, second.url].map((b, i) => post(b, v.token, `p-${i}.mp3`, fifteen)))).map(
        (r) => r.status,
      );
      const held = async (uid: string) =>
        (await t.db.transcriptionJob.findMany({ where: { userId: uid } })).reduce((s, j) => s + j.reservedSeconds, 0);
      const [heldU, heldV] = [await held(u.uid), await held(v.uid)];
      rows.push([
        "free account: 3rd 15-min upload with 2 in flight; 2 at once on 2 gateways with 20 min left",
        `in turn ${seq.join(", ")} (${heldU} s held); at once ${par.sort().join(", ")} (${heldV} s held)`,
        seq.join() === "202,202,402" && heldU === 1800 && par.join() === "202,402" && heldV === 900,
      ]);
    }

    // -------------------------------------------------------- the stream charged is the stream decoded
    {
      const file = path.join(dir, "two-streams.m4a");
      // a:0 mono 18.5 s (not default), a:1 stereo 120 s (default): ffmpeg left to choose decodes a:1.
      ffmpeg(
        ...["-f", "lavfi", "-t", "18.5", "-i", "sine=f=440:r=16000"],
        ...["-f", "lavfi", "-t", "120", "-i", "sine=f=660:r=16000"],
        ...["-map", "0:a", "-map", "1:a", "-ac:a:1", "2", "-c:a", "aac", "-b:a", "24k"],
        ...["-disposition:a:0", "0", "-disposition:a:1", "default", file],
      );
      const u = await createUser(t, { plan: "premium" });
      const r = await post(t.url, u.token, "two.m4a", readFileSync(file));
      const job = r.body.jobId ? await t.db.transcriptionJob.findUnique({ where: { id: r.body.jobId } }) : null;
      let decoded = Number.NaN;
      if (job) {
        // What the worker decodes from the stored object with the job's own fields (stored just after the 202).
        await audioStored(t, job.id);
        const store = createObjectStore(loadGatewayConfig(t.env));
        const src = path.join(dir, "stored.m4a");
        await pipeline(await store.get(job.audioKey), createWriteStream(src));
        const out = await decodeToWav(src, path.join(dir, "decoded.wav"), {
          format: "m4a",
          stream: job.audioStream,
          maxSeconds: job.durationSeconds,
        });
        decoded = out.duration;
      }
      const charged = job?.durationSeconds ?? 0;
      rows.push([
        "M4A: short stream first, long one default",
        `upload ${r.status}; stream ${job?.audioStream}; charged ${charged.toFixed(1)} s; worker decodes ${decoded.toFixed(1)} s`,
        r.status === 202 && decoded <= charged + 0.6 && charged >= 119,
      ]);
    }

    // -------------------------------------------------------- live text, then delete
    {
      const workers = [await startWorker(t, "transcription-worker", { CHUNK_SECONDS: "10", CHUNK_CONCURRENCY: "1" })];
      try {
        const u = await createUser(t, { plan: "premium" });
        const sock = await listen(t, u.token);
        const mp3 = readFileSync(FIXTURE);
        const r = await post(t.url, u.token, "interview.mp3", mp3, { language: "en" });
        const jobId = String(r.body.jobId);
        const first: { segments: Array<{ end: number }> } | null = await sock
          .until((m) => m.jobId === jobId && m.type === "segments", 240_000)
          .catch(() => null);
        const sentUpTo = first ? Math.max(...first.segments.map((seg) => seg.end), 0) : 0;
        const del = await fetch(`${t.url}/api/transcriptions/${jobId}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${u.token}` },
        });
        sock.close();
        const events = await t.db.usageEvent.findMany({ where: { userId: u.uid } });
        const charged = events.reduce((s, e) => s + e.amount, 0);
        rows.push([
          "live text received, then the job deleted",
          `upload ${r.status}; text sent up to ${sentUpTo.toFixed(1)} s; delete ${del.status}; charged ${charged} s in ${events.length} event(s)`,
          first !== null && del.status === 204 && charged >= Math.floor(sentUpTo) && events.length === 1,
        ]);
      } finally {
        for (const w of workers) await stopService(w);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
