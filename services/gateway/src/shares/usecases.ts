import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import {
  AppError,
  type CreatedShare,
  type CreateShare,
  isSupportedLanguage,
  isUuid,
  type JobSpeaker,
  META_PAGES,
  SHARE_TOKEN_PATTERN,
  SHARES_PER_JOB_MAX,
  type Share,
  type SharedTranscription,
  type TranscriptSegment,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { ownJob } from "../jobs/repository.ts";
import { isAudioExpired, jobTitle } from "../jobs/snapshot.ts";
import type { StoredAudio } from "../lib/audio-stream.ts";
import {
  insertShareWithin,
  liveShareByHash,
  liveShares,
  markOpened,
  revokeShare,
  type ShareRow,
} from "./repository.ts";

/** How long a share link's signed audio URL plays. */
export const SHARE_AUDIO_URL_TTL_SECONDS = 15 * 60;

export interface ShareServiceDeps {
  db: Db;
  /** The site's address: a link is `{publicUrl}/{lang}/shared/{token}`. */
  publicUrl: string;
  /** The server secret the audio URLs are signed with (a key is derived from it). */
  secret: string;
  now?: () => Date;
  maxPerJob?: number;
}

export type ShareService = ReturnType<typeof createShareService>;

/** SHA-256 of a token, hex: what is stored and looked up. */
export const hashShareToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

const notFound = () => new AppError("NOT_FOUND", "This link has expired, was revoked or does not exist");

const toShare = (r: ShareRow): Share => ({
  id: r.id,
  includeAudio: r.includeAudio,
  expiresAt: r.expiresAt.toISOString(),
  createdAt: r.createdAt.toISOString(),
  lastOpenedAt: r.lastOpenedAt?.toISOString() ?? null,
});

/**
 * Share links: the owner makes (a random 32-byte token, only its hash kept), lists and revokes them;
 * a holder of a live link reads the job and plays its audio through a URL signed for 15 minutes.
 */
export function createShareService(deps: ShareServiceDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const maxPerJob = deps.maxPerJob ?? SHARES_PER_JOB_MAX;
  const origin = deps.publicUrl.replace(/\/$/, "");
  const audioKey = createHmac("sha256", deps.secret).update("kikitori-share-audio-v1").digest();
  const sign = (tokenHash: string, exp: number) =>
    createHmac("sha256", audioKey).update(`${tokenHash}.${exp}`).digest("base64url");

  /** The live link of a token with its job, or 404 NOT_FOUND (malformed, unknown, expired, revoked). */
  async function liveByToken(token: string) {
    if (!SHARE_TOKEN_PATTERN.test(token)) throw notFound();
    const tokenHash = hashShareToken(token);
    const share = await liveShareByHash(db, tokenHash, now());
    if (!share) throw notFound();
    return { share, tokenHash };
  }

  return {
    async create(uid: string, jobId: string, input: CreateShare): Promise<CreatedShare> {
      const job = await ownJob(db, uid, jobId);
      if (job.transcription === null) throw new AppError("JOB_NOT_READY", "The transcript is not written yet");
      const token = randomBytes(32).toString("base64url");
      const at = now();
      const row = await insertShareWithin(
        db,
        {
          id: randomUUID(),
          jobId: job.id,
          userId: uid,
          tokenHash: hashShareToken(token),
          includeAudio: input.includeAudio,
          expiresAt: new Date(at.getTime() + input.expiresInDays * 86_400_000),
        },
        maxPerJob,
        at,
      );
      if (!row) {
        throw new AppError("SHARE_LIMIT_REACHED", `A transcription can have at most ${maxPerJob} live share links`, {
          details: { max: maxPerJob },
        });
      }
      const lang = input.language ?? (isSupportedLanguage(job.language) ? job.language : "en");
      const url = `${origin}/${lang}/${META_PAGES.shared.route.replace(":token", token)}`;
      return { ...toShare(row), token, url };
    },

    async list(uid: string, jobId: string): Promise<Share[]> {
      const job = await ownJob(db, uid, jobId);
      return (await liveShares(db, job.id, now())).map(toShare);
    },

    async revoke(uid: string, jobId: string, shareId: string): Promise<void> {
      const job = await ownJob(db, uid, jobId);
      if (!isUuid(shareId) || !(await revokeShare(db, job.id, shareId, now())))
        throw new AppError("NOT_FOUND", "No such link");
    },

    /** What the link shows: the job's current texts, and a signed audio URL when the link includes it. */
    async open(token: string): Promise<SharedTranscription> {
      const { share, tokenHash } = await liveByToken(token);
      const { job } = share;
      const at = now();
      await markOpened(db, share.id, at);
      const withAudio = share.includeAudio && !isAudioExpired(job, at);
      const exp = Math.floor(at.getTime() / 1000) + SHARE_AUDIO_URL_TTL_SECONDS;
      const audioUrl = withAudio
        ? `/api/shared/${token}/audio?exp=${exp}&sig=${encodeURIComponent(sign(tokenHash, exp))}`
        : null;
      return {
        title: jobTitle(job),
        speakers: Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [],
        segments: Array.isArray(job.segments) ? (job.segments as TranscriptSegment[]) : [],
        transcription: job.transcription,
        rewrittenText: job.rewrittenText,
        durationSeconds: job.durationSeconds,
        language: job.detectedLanguage ?? (job.audioLanguage !== "auto" ? job.audioLanguage : null),
        createdAt: job.createdAt.toISOString(),
        expiresAt: share.expiresAt.toISOString(),
        audioUrl,
        audioUrlExpiresAt: withAudio ? new Date(exp * 1000).toISOString() : null,
      };
    },

    /**
     * The recording behind a signed audio URL: 403 FORBIDDEN for a wrong or lapsed signature, 404 when
     * the link is no longer live or does not include the audio, 410 AUDIO_EXPIRED after retention.
     */
    async audio(token: string, exp: number, sig: string): Promise<StoredAudio> {
      if (!SHARE_TOKEN_PATTERN.test(token)) throw notFound();
      const expected = Buffer.from(sign(hashShareToken(token), exp));
      const given = Buffer.from(sig);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError("FORBIDDEN", "The audio link's signature is not valid");
      }
      if (exp * 1000 <= now().getTime()) throw new AppError("FORBIDDEN", "The audio link has expired: reload the page");
      const { share } = await liveByToken(token);
      if (!share.includeAudio) throw notFound();
      if (isAudioExpired(share.job, now()))
        throw new AppError("AUDIO_EXPIRED", "The audio has expired and was deleted");
      return { key: share.job.audioKey, mime: share.job.audioMime, bytes: share.job.audioBytes };
    },
  };
}
