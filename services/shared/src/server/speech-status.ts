import type { Redis } from "ioredis";
import { SPEECH_STATUS_UNKNOWN, type SpeechStatus, speechStatusSchema } from "../speech.ts";

/** How long a worker's word stands without being renewed (workers renew every third of it). */
export const SPEECH_STATUS_TTL_SECONDS = 90;

const key = (prefix: string) => `${prefix}:speech-status`;

/** Worker side: say what this stack's speech engine can do (renewed while the worker lives). */
export async function writeSpeechStatus(redis: Redis, prefix: string, status: SpeechStatus): Promise<void> {
  await redis.set(key(prefix), JSON.stringify(speechStatusSchema.parse(status)), "EX", SPEECH_STATUS_TTL_SECONDS);
}

/** Gateway side: what the workers said last; "unknown" (not available) when none is running. */
export async function readSpeechStatus(redis: Redis, prefix: string): Promise<SpeechStatus> {
  const raw = await redis.get(key(prefix));
  if (!raw) return SPEECH_STATUS_UNKNOWN;
  const parsed = speechStatusSchema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : SPEECH_STATUS_UNKNOWN;
}
