import type { SharedTranscription } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { isApiError } from "../api/errors.ts";
import { usePageMeta } from "../components/usePageMeta.ts";
import { useAppConfig } from "../config/appConfig.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatDateTime } from "../job/format.ts";
import { SegmentList } from "../job/SegmentList.tsx";
import { type Player, usePlayer } from "../job/usePlayer.ts";
import { useSpeakerName } from "../job/useSpeakerNames.ts";
import { formatAmount } from "../plan/format.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { languageName } from "../transcription/audioLanguage.ts";
import { getShared } from "./api.ts";

const noop = () => undefined;

/** Tells search engines not to index the page while it is shown (the server writes the same tag). */
function useNoIndex(): void {
  useEffect(() => {
    if (!document.head.querySelector('meta[name="robots"]')) {
      const meta = document.createElement("meta");
      meta.name = "robots";
      meta.content = "noindex, nofollow";
      document.head.appendChild(meta);
    }
    return () => {
      for (const el of document.head.querySelectorAll('meta[name="robots"]')) el.remove();
    };
  }, []);
}

/**
 * A shared interview (/{lang}/shared/{token}), for anyone holding the link, logged in or not: the
 * player when the link includes the audio, the timed transcript and the interview text, read-only.
 * Not indexed, no share buttons; an expired or revoked link says so.
 */
export function SharedJobPage() {
  const { t } = useTranslation();
  const { token = "" } = useParams();
  usePageMeta("shared");
  useNoIndex();
  const shared = useQuery({ queryKey: ["shared", token], queryFn: ({ signal }) => getShared(token, signal) });

  if (shared.isPending) {
    return (
      <section className="page shared-page">
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("sharedPage.loading")}
        </p>
      </section>
    );
  }
  if (shared.isError) {
    const gone = isApiError(shared.error) && shared.error.status === 404;
    return (
      <section className="page shared-page" data-testid="shared-gone" data-gone={gone}>
        <h1 data-testid="page-title">{gone ? t("sharedPage.expiredTitle") : t("sharedPage.title")}</h1>
        <p className={gone ? "muted" : "alert alert-error"} role={gone ? undefined : "alert"}>
          {gone ? t("sharedPage.expiredBody") : errorText(t, shared.error)}
        </p>
        {gone ? null : (
          <button type="button" className="btn btn-secondary" onClick={() => void shared.refetch()}>
            {t("sharedPage.retry")}
          </button>
        )}
      </section>
    );
  }
  return <SharedView data={shared.data} onRenew={() => void shared.refetch()} />;
}

/**
 * The audio URL of a link plays for 15 minutes: when it fails after that, the page asks for a new one
 * and goes on from where it was (playing if it was); any other failure is shown.
 */
function useRenewingAudio(player: Player, expiresAt: string | null, renew: () => void) {
  const resume = useRef<{ at: number; playing: boolean } | null>(null);
  const [broken, setBroken] = useState(false);
  const onError = () => {
    const lapsed = expiresAt !== null && Date.parse(expiresAt) <= Date.now() + 5_000;
    if (lapsed && !resume.current) {
      resume.current = { at: player.ref.current?.currentTime ?? player.time, playing: player.playing };
      renew();
    } else setBroken(true);
  };
  const onLoaded = () => {
    const r = resume.current;
    resume.current = null;
    if (!r) return;
    if (r.playing) player.play(r.at);
    else player.seek(r.at);
  };
  return { broken, onError, onLoaded };
}

function SharedView({ data, onRenew }: { data: SharedTranscription; onRenew: () => void }) {
  const { t } = useTranslation();
  const lang = useLang();
  const { appName } = useAppConfig();
  const shownName = useSpeakerName();
  const player = usePlayer(data.audioUrl !== null);
  const audio = useRenewingAudio(player, data.audioUrlExpiresAt, onRenew);
  const texts = useMemo(() => data.segments.map((s) => s.text), [data.segments]);
  const who = useMemo(() => data.segments.map((s) => s.speaker), [data.segments]);
  const canSeek = data.audioUrl !== null && !audio.broken;

  return (
    <section className="page ws-page shared-page" data-testid="shared">
      <h1 className="ws-title-static" data-testid="page-title" dir="auto">
        {data.title}
      </h1>
      <p className="ws-meta muted">
        <time dateTime={data.createdAt}>{formatDateTime(data.createdAt, lang)}</time>
        <span>{t("transcription.durationMinutes", { value: formatAmount(data.durationSeconds / 60, lang) })}</span>
        {data.language ? (
          <span>{t("transcription.language", { language: languageName(data.language, lang) })}</span>
        ) : null}
        {data.speakers.length ? (
          <span data-testid="shared-speakers">{data.speakers.map(shownName).join(", ")}</span>
        ) : null}
      </p>
      <p className="alert alert-info" data-testid="shared-readonly">
        {t("sharedPage.readOnly", { date: formatDateTime(data.expiresAt, lang) })}
      </p>

      <div className="card ws-player">
        {data.audioUrl === null ? (
          <p className="muted" data-testid="shared-no-audio">
            {t("sharedPage.noAudio")}
          </p>
        ) : (
          <>
            {/* biome-ignore lint/a11y/useMediaCaption: the timed transcript below is the text alternative */}
            <audio
              ref={player.attach}
              className="tx-audio"
              data-testid="shared-audio"
              controls
              preload="metadata"
              src={data.audioUrl}
              onError={audio.onError}
              onLoadedMetadata={audio.onLoaded}
            />
            {audio.broken ? <p className="muted">{t("transcription.audioLoadFailed")}</p> : null}
            <p className="hint">{t("job.keys")}</p>
          </>
        )}
      </div>

      <div className="ws-columns">
        <section className="card ws-transcript" aria-labelledby="shared-transcript-title">
          <h2 id="shared-transcript-title">{t("transcription.transcriptTitle")}</h2>
          {data.segments.length ? (
            <SegmentList
              segments={data.segments}
              texts={texts}
              who={who}
              speakers={data.speakers}
              time={player.time}
              canSeek={canSeek}
              editable={false}
              language={data.language ?? lang}
              plainText
              onSeek={player.seek}
              onPlay={player.play}
              onEdit={noop}
              onSpeaker={noop}
            />
          ) : (
            <Paragraphs text={data.transcription ?? ""} testId="shared-transcript" />
          )}
        </section>
        <section className="card ws-interview" aria-labelledby="shared-interview-title">
          <h2 id="shared-interview-title">{t("transcription.correctedTitle")}</h2>
          {data.rewrittenText !== null ? (
            <Paragraphs text={data.rewrittenText} testId="shared-interview" />
          ) : (
            <p className="muted">{t("transcription.waitingCorrected")}</p>
          )}
        </section>
      </div>
      <p className="muted shared-cta">
        <Link to={localePath(lang, ROUTES.transcription)}>{t("sharedPage.cta", { appName })}</Link>
      </p>
    </section>
  );
}

/** A text as paragraphs (split at blank lines; single line breaks kept). */
function Paragraphs({ text, testId }: { text: string; testId: string }) {
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim());
  return (
    <div className="shared-text" data-testid={testId} dir="auto">
      {paragraphs.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed text, never reordered
        <p key={i}>{p}</p>
      ))}
    </div>
  );
}
