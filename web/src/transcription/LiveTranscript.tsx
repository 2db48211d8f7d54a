import type { TranscriptSegment } from "@kikitori/shared";
import { useLayoutEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { formatClock, isoDuration } from "../job/time.ts";
import { useLang } from "../routing/useLang.ts";

/** How close to the bottom (px) still counts as "following the newest line". */
const STICK_PX = 24;

/**
 * The transcript as it grows while the job is transcribing: one timed line per segment ("[02:30] text",
 * with "Speaker 2" where the voice changes),
 * read-only, announced politely, each line in its own direction (the recording may be in another
 * script than the interface). Scrolls to the newest line unless the user scrolled up to read.
 */
export function LiveTranscript({
  segments,
  labelledBy,
}: {
  segments: readonly TranscriptSegment[];
  labelledBy: string;
}) {
  const lang = useLang();
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);

  const onScroll = () => {
    const el = box.current;
    if (el) follow.current = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;
  };

  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current && segments.length > 0) el.scrollTop = el.scrollHeight;
  }, [segments]);

  return (
    <div
      ref={box}
      className="tx-live"
      data-testid="tx-live-transcript"
      role="log"
      aria-live="polite"
      aria-labelledby={labelledBy}
      dir="auto"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll it
      tabIndex={0}
      onScroll={onScroll}
    >
      {segments.map((s, i) =>
        s.text.trim() ? (
          // The reducer keeps one segment per start and text.
          <p key={`${s.start}|${s.text}`} className="tx-live-line" dir="auto" data-speaker={s.speaker}>
            <time className="tx-live-time" dateTime={isoDuration(s.start)}>
              [{formatClock(s.start, lang, { padMinutes: true })}]
            </time>{" "}
            {s.speaker !== undefined && s.speaker !== segments[i - 1]?.speaker ? (
              <>
                <span className="tx-live-speaker">{t("transcription.speakerN", { n: s.speaker + 1 })}</span>{" "}
              </>
            ) : null}
            {s.text.trim()}
          </p>
        ) : null,
      )}
    </div>
  );
}
