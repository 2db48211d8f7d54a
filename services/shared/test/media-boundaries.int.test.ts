// What a user's file can make ffprobe/ffmpeg do: every call forces the demuxer of the sniffed format
// and allows only the file protocol, so a playlist behind an audio-looking header reads no server file;
// the stream decoded is the one measured, and no further than its charged length.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  decodedSeconds,
  ffmpegPath,
  ffprobePath,
  probeAudio,
  sniffAudioFile,
  sniffAudioFormat,
  wavPcmInfo,
} from "@kikitori/shared/server";
import { decodeToWav } from "../../transcription-worker/src/audio.ts";

const FIXTURE = path.resolve(import.meta.dirname, "../../../tests/fixtures/audio/interview-en.mp3");
let dir: string;
let secret: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-media-"));
  // A "server file": speech that no user uploaded.
  secret = path.join(dir, "secret", "server-file.mp3");
  execFileSync("mkdir", ["-p", path.dirname(secret)]);
  copyFileSync(FIXTURE, secret);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ID3_EMPTY = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
/** An ID3 tag of `size` body bytes (synchsafe size), e.g. cover art. */
function id3(size: number): Buffer {
  const h = Buffer.from([
    0x49,
    0x44,
    0x33,
    3,
    0,
    0,
    (size >> 21) & 0x7f,
    (size >> 14) & 0x7f,
    (size >> 7) & 0x7f,
    size & 0x7f,
  ]);
  return Buffer.concat([h, Buffer.alloc(size)]);
}
const upload = (name: string, bytes: Buffer) => {
  const file = path.join(dir, "uploads", name);
  execFileSync("mkdir", ["-p", path.dirname(file)]);
  writeFileSync(file, bytes);
  return file;
};
const head = (file: string) => readFileSync(file).subarray(0, 4096);
/** What ffprobe makes of a file when it may guess the format (how the files were read before). */
const guessedAudio = (file: string) => {
  try {
    return execFileSync(ffprobePath(), ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv", file], {
      encoding: "utf8",
      timeout: 30_000,
    }).includes("audio");
  } catch {
    return false;
  }
};

const hls = (target: string) =>
  `#EXTM3U\n#EXT-X-TARGETDURATION:20\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:18.5,\n${target}\n#EXT-X-ENDLIST\n`;
const playlists = (target: string, rel: string): Array<[string, string]> => [
  ["HLS, absolute file:// path", hls(`file://${target}`)],
  ["HLS, absolute path", hls(target)],
  ["HLS, relative ../ path", hls(rel)],
  ["ffconcat", `ffconcat version 1.0\nfile '${target}'\n`],
  ["SDP", `v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\n`],
  ["subfile", `subfile,,start,0,end,0,,:${target}\n`],
  ["ASF/WPL-like XML playlist", `<asx version="3.0"><entry><ref href="${target}"/></entry></asx>\n`],
];

describe("playlists dressed up as audio read no server file", () => {
  it("the HLS attack is real: ffprobe left to guess reads the server file through it", () => {
    const file = upload("control.mp3", Buffer.concat([ID3_EMPTY, Buffer.from(hls(`file://${secret}`))]));
    expect(guessedAudio(file)).toBe(true);
  });

  for (const [prefixName, prefix] of [
    ["behind an ID3 tag", ID3_EMPTY],
    ["behind a RIFF/WAVE header", Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ", "latin1")],
    ["behind an Ogg page header", Buffer.from("OggS\x00\x02", "latin1")],
    ["behind fLaC", Buffer.from("fLaC", "latin1")],
    ["behind an ftyp box", Buffer.from("\x00\x00\x00\x18ftypM4A \x00\x00\x00\x00isomM4A ", "latin1")],
    ["behind an EBML (WebM) header", Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01])],
  ] as const) {
    it(`${prefixName}: not sniffed as audio, or read as nothing by its own demuxer`, async () => {
      for (const [name, body] of playlists(secret, "../secret/server-file.mp3")) {
        const file = upload(`${name.replace(/\W+/g, "-")}.bin`, Buffer.concat([prefix, Buffer.from(body)]));
        const format = await sniffAudioFile(file, head(file));
        if (prefix === ID3_EMPTY) expect({ name, format }).toEqual({ name, format: null });
        if (!format) continue;
        const probe = await probeAudio(file, format);
        const seconds = await decodedSeconds(file, format, probe?.stream ?? 0);
        expect({ name, prefixName, probe, seconds }).toEqual({ name, prefixName, probe: null, seconds: 0 });
        const wav = path.join(dir, "out.wav");
        await expect(decodeToWav(file, wav, { format, stream: 0 })).rejects.toThrow();
      }
    });
  }
});

describe("the sniffer wants real frames after an ID3 tag", () => {
  it("finds MP3 frames after a tag longer than the bytes first read (cover art), by reading on in the file", async () => {
    const mp3 = readFileSync(FIXTURE);
    const plain = mp3.subarray(
      10 + (((mp3[6] & 0x7f) << 21) | ((mp3[7] & 0x7f) << 14) | ((mp3[8] & 0x7f) << 7) | (mp3[9] & 0x7f)),
    );
    const file = upload("cover-art.mp3", Buffer.concat([id3(64_000), plain]));
    expect(sniffAudioFormat(head(file))).toBeNull(); // the first 4 KiB are all tag
    expect(await sniffAudioFile(file, head(file))).toBe("mp3");
    const probe = await probeAudio(file, "mp3");
    expect(probe?.durationSeconds).toBeGreaterThan(50);
    expect(await decodedSeconds(file, "mp3", 0)).toBeGreaterThan(50);
  });

  it("knows real audio from look-alikes", async () => {
    expect(sniffAudioFormat(head(FIXTURE))).toBe("mp3");
    expect(sniffAudioFormat(Buffer.concat([ID3_EMPTY, Buffer.from([0xff, 0xfb, 0x00, 0x00])]))).toBeNull(); // bitrate 0
    expect(sniffAudioFormat(Buffer.concat([ID3_EMPTY, Buffer.from("\xff\xfbtext", "latin1")]))).toBeNull();
    expect(sniffAudioFormat(Buffer.concat([ID3_EMPTY, Buffer.from("fLaC\x00\x00\x00\x22", "latin1")]))).toBe("flac");
    expect(sniffAudioFormat(Buffer.from("#EXTM3U\n"))).toBeNull();
  });
});

describe("the stream decoded is the stream measured and charged", () => {
  let twoStreams: string;
  beforeAll(() => {
    // a:0 mono 3 s (not default), a:1 stereo 12 s (default): ffmpeg left alone would decode a:1.
    twoStreams = path.join(dir, "two-streams.m4a");
    execFileSync(ffmpegPath(), [
      ...["-v", "error", "-y", "-f", "lavfi", "-t", "3", "-i", "sine=f=440:r=16000"],
      ...["-f", "lavfi", "-t", "12", "-i", "sine=f=660:r=16000"],
      ...["-map", "0:a", "-map", "1:a", "-ac:a:1", "2", "-c:a", "aac"],
      ...["-disposition:a:0", "0", "-disposition:a:1", "default", twoStreams],
    ]);
  });

  it("probes each stream's own length and chooses the longest", async () => {
    const probe = await probeAudio(twoStreams, "m4a");
    expect(probe).toMatchObject({ stream: 1, audioStreams: 2 });
    expect(probe?.durationSeconds).toBeCloseTo(12, 0);
    expect(await decodedSeconds(twoStreams, "m4a", 0)).toBeCloseTo(3, 0);
    expect(await decodedSeconds(twoStreams, "m4a", 1)).toBeCloseTo(12, 0);
  });

  it("the worker decodes exactly that stream, and no further than the seconds charged", async () => {
    const wav = path.join(dir, "decoded.wav");
    expect((await decodeToWav(twoStreams, wav, { format: "m4a", stream: 0 })).duration).toBeCloseTo(3, 0);
    const capped = await decodeToWav(twoStreams, wav, { format: "m4a", stream: 1, maxSeconds: 5 });
    expect(capped.duration).toBeLessThanOrEqual(5.6);
    expect(capped.duration).toBeGreaterThan(4.9);
  });
});

describe("what phones, cameras and browsers record", () => {
  const make = (name: string, args: string[]) => {
    const file = path.join(dir, name);
    execFileSync(ffmpegPath(), [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-t",
      "4",
      "-i",
      "sine=f=440:r=48000",
      ...args,
      file,
    ]);
    return file;
  };

  it("reads WebM/Opus (a browser's MediaRecorder), Matroska, QuickTime .mov and MP4 video by their own demuxers", async () => {
    const video = ["-f", "lavfi", "-t", "4", "-i", "color=c=black:s=64x64:r=5"];
    const files: Array<[string, string]> = [
      ["browser.webm", make("browser.webm", ["-c:a", "libopus"])],
      ["audio.mka", make("audio.mka", ["-c:a", "libvorbis"])],
      ["phone.mov", make("phone.mov", [...video, "-map", "0:a", "-map", "1:v", "-c:a", "aac", "-c:v", "mpeg4"])],
      ["camera.mp4", make("camera.mp4", [...video, "-map", "1:v", "-map", "0:a", "-c:a", "aac", "-c:v", "mpeg4"])],
    ];
    for (const [name, file] of files) {
      const format = await sniffAudioFile(file, head(file));
      expect({ name, format }).toEqual({
        name,
        format: name.endsWith(".mov") || name.endsWith(".mp4") ? "m4a" : "webm",
      });
      if (!format) continue;
      const probe = await probeAudio(file, format);
      expect({ name, stream: probe?.stream, audioStreams: probe?.audioStreams }).toEqual({
        name,
        stream: 0,
        audioStreams: 1,
      });
      expect(await decodedSeconds(file, format, 0)).toBeCloseTo(4, 0);
      const out = await decodeToWav(file, path.join(dir, `${name}.wav`), { format, stream: 0, maxSeconds: 4 });
      expect(out.duration).toBeCloseTo(4, 0);
    }
  });
});

describe("an uncompressed WAV's header gives what ffprobe and a full decode give", () => {
  const cases: Array<[string, string[]]> = [
    ["16 kHz mono 16-bit", ["-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le"]],
    ["44.1 kHz stereo 24-bit", ["-ar", "44100", "-ac", "2", "-c:a", "pcm_s24le"]],
    ["48 kHz mono float", ["-ar", "48000", "-ac", "1", "-c:a", "pcm_f32le"]],
  ];
  it.each(cases)("%s, whole and cut short", async (_name, codec) => {
    const whole = path.join(dir, `pcm-${codec.join("")}.wav`);
    execFileSync(ffmpegPath(), ["-v", "error", "-y", "-i", FIXTURE, "-t", "7", ...codec, whole]);
    const bytes = readFileSync(whole);
    const cut = path.join(dir, `cut-${codec.join("")}.wav`);
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    for (const file of [whole, cut]) {
      const data = readFileSync(file);
      const info = wavPcmInfo(data.subarray(0, 4096), data.length);
      const probed = await probeAudio(file, "wav");
      const decoded = await decodedSeconds(file, "wav", 0);
      expect(info).not.toBeNull();
      // Whole, ffprobe gives the same length (cut short, ffmpeg decodes what is there, as counted).
      if (file === whole) expect(info?.presentSeconds).toBeCloseTo(probed?.durationSeconds ?? -1, 2);
      // ffmpeg prints its progress time in hundredths.
      expect(Math.abs((info?.presentSeconds ?? -1) - decoded)).toBeLessThanOrEqual(0.02);
    }
  });
});
