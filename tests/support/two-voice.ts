// Two-voice interviews made of real recorded speech, with the truth of who speaks when: the test
// material of speaker diarization. Real voices: the LibriVox reader of Debian's
// pocketsphinx-testdata (5 clips, ~25 s), the speaker of its "cards" recordings (5 clips, ~10 s),
// and J. F. Kennedy's inaugural address excerpt that whisper.cpp ships as samples/jfk.wav
// (tests/fixtures/audio/jfk.wav, 11 s, cut into phrases at its pauses). Synthetic voices
// (espeak-ng) are an extra.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SpeakerSpan } from "../../services/transcription-worker/src/diarization/port.ts";
import { readWavMono16k } from "../../services/transcription-worker/src/wav.ts";
import { wavHeader } from "./wav.ts";

export const TESTDATA = "/usr/share/pocketsphinx/test/data";
const RATE = 16_000;

/** 20 ms frames at 16 kHz. */
const FRAME = 320;

/** RMS of each 20 ms frame. */
function frameRms(samples: Float32Array): number[] {
  const rms: number[] = [];
  for (let i = 0; i + FRAME <= samples.length; i += FRAME) {
    let s = 0;
    for (let j = i; j < i + FRAME; j++) s += samples[j] * samples[j];
    rms.push(Math.sqrt(s / FRAME));
  }
  return rms;
}

/** Cuts leading and trailing near-silence (20 ms frames below 5 % of the clip's peak RMS). */
export function trimSilence(samples: Float32Array): Float32Array {
  const rms = frameRms(samples);
  const floor = Math.max(...rms) * 0.05;
  const first = rms.findIndex((r) => r > floor);
  const last = rms.length - 1 - [...rms].reverse().findIndex((r) => r > floor);
  if (first < 0) return samples;
  return samples.subarray(Math.max(0, first - 2) * FRAME, Math.min(rms.length, last + 3) * FRAME);
}

const wav = (file: string) => trimSilence(readWavMono16k(readFileSync(file)));

/** Cuts a recording at its pauses (≥ 0.25 s of 20 ms frames below 5 % of the peak RMS) into phrases of ≥ 0.8 s. */
export function splitOnPauses(samples: Float32Array): Float32Array[] {
  const rms = frameRms(samples);
  const floor = Math.max(...rms) * 0.05;
  const out: Float32Array[] = [];
  let start = -1;
  let quiet = 0;
  rms.forEach((r, i) => {
    if (r > floor) {
      if (start < 0) start = i;
      quiet = 0;
    } else if (start >= 0 && ++quiet >= 13) {
      if (i - quiet - start >= 40) out.push(samples.subarray(start * FRAME, (i - quiet + 2) * FRAME));
      start = -1;
    }
  });
  if (start >= 0 && rms.length - start >= 40) out.push(samples.subarray(start * FRAME));
  return out;
}

export const JFK_WAV = path.join(import.meta.dirname, "../fixtures/audio/jfk.wav");

/** The real voices, clips trimmed: LibriVox reader, "cards" speaker, Kennedy (phrases). */
export function realVoiceClips(dir = TESTDATA): {
  librivox: Float32Array[];
  cards: Float32Array[];
  jfk: Float32Array[];
} {
  const clips = (sub: string) =>
    readdirSync(path.join(dir, sub))
      .filter((f) => f.endsWith(".wav"))
      .sort()
      .map((f) => wav(path.join(dir, sub, f)));
  return { librivox: clips("librivox"), cards: clips("cards"), jfk: splitOnPauses(wav(JFK_WAV)) };
}

/** Two real voices: A the LibriVox reader, B the "cards" speaker. */
export function realVoices(dir = TESTDATA): { a: Float32Array[]; b: Float32Array[] } {
  const v = realVoiceClips(dir);
  return { a: v.librivox, b: v.cards };
}

/** Clips of an espeak-ng voice saying each sentence (16 kHz mono), trimmed. */
export function espeakVoice(voice: string, sentences: string[]): Float32Array[] {
  return sentences.map((text) => {
    const out = execFileSync("espeak-ng", ["-v", voice, "--stdout", text]);
    const raw = execFileSync(
      "ffmpeg",
      ["-v", "error", "-i", "pipe:0", "-ar", "16000", "-ac", "1", "-f", "wav", "pipe:1"],
      {
        input: out,
      },
    );
    return trimSilence(readWavMono16k(raw));
  });
}

/** A small deterministic generator (mulberry32) so that every build of an interview is the same. */
function random(seed: number) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = Math.imul(t ^ (t >>> 15), 1 | t);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Interview {
  samples: Float32Array;
  /** Who speaks when: one span per clip (a turn of two clips is two spans of one speaker). */
  truth: SpeakerSpan[];
  /** The speaker of each turn, in order. */
  turns: number[];
  duration: number;
}

/**
 * An interview of `turns` turns alternating A (speaker 0) and B (speaker 1): each turn is one or two
 * clips of its voice (cycled), with 0.15–0.35 s inside a turn and 0.5–1.1 s between turns, and a
 * faint noise floor so the silence is not digital.
 */
export function buildInterview(voices: { a: Float32Array[]; b: Float32Array[] }, turns = 20, seed = 7): Interview {
  const rnd = random(seed);
  const pieces: Array<{ samples: Float32Array; speaker: number } | { gap: number }> = [];
  const next = [0, 0];
  const order: number[] = [];
  for (let t = 0; t < turns; t++) {
    const speaker = t % 2;
    order.push(speaker);
    const pool = speaker === 0 ? voices.a : voices.b;
    const clips = rnd() < 0.35 ? 2 : 1;
    for (let c = 0; c < clips; c++) {
      pieces.push({ samples: pool[next[speaker]++ % pool.length], speaker });
      if (c < clips - 1) pieces.push({ gap: 0.15 + 0.2 * rnd() });
    }
    pieces.push({ gap: 0.5 + 0.6 * rnd() });
  }
  const total = pieces.reduce((n, p) => n + ("gap" in p ? Math.round(p.gap * RATE) : p.samples.length), 0) + RATE / 2;
  const samples = new Float32Array(total);
  const noise = random(seed + 1);
  for (let i = 0; i < total; i++) samples[i] = (noise() - 0.5) * 0.002;
  const truth: SpeakerSpan[] = [];
  let at = RATE / 2;
  for (const p of pieces) {
    if ("gap" in p) {
      at += Math.round(p.gap * RATE);
      continue;
    }
    for (let i = 0; i < p.samples.length; i++) samples[at + i] += p.samples[i];
    truth.push({ start: at / RATE, end: (at + p.samples.length) / RATE, speaker: p.speaker });
    at += p.samples.length;
  }
  return { samples, truth, turns: order, duration: total / RATE };
}

/** Writes 16-bit PCM mono 16 kHz. */
export function writeWav(file: string, samples: Float32Array): void {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i] * 32767))), i * 2);
  }
  const head = wavHeader(data.length, RATE);
  writeFileSync(file, Buffer.concat([head, data]));
}
