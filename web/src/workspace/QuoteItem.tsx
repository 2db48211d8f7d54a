import type { PatchQuoteInput, Quote } from "@kikitori/shared";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { formatClock, isoDuration } from "../job/time.ts";
import { useLang } from "../routing/useLang.ts";
import { deleteQuote, patchQuote } from "./quotesApi.ts";

/** Tags as typed ("lead, risk") → the list the API takes. */
export const parseTags = (s: string) =>
  s
    .split(/[,、，]/u)
    .map((t) => t.trim())
    .filter(Boolean);

/** A quote's note and tags, each saved when its field is left. */
function QuoteFields({ quote, onChange }: { quote: Quote; onChange: (body: PatchQuoteInput) => void }) {
  const { t } = useTranslation();
  const [note, setNote] = useState(quote.note ?? "");
  const [tags, setTags] = useState(quote.tags.join(", "));
  useEffect(() => setNote(quote.note ?? ""), [quote.note]);
  useEffect(() => setTags(quote.tags.join(", ")), [quote.tags]);
  return (
    <div className="ws-quote-fields">
      <label>
        {t("job.quotes.note")}
        <textarea
          rows={1}
          value={note}
          maxLength={2000}
          dir="auto"
          data-testid="ws-quote-note"
          onChange={(e) => setNote(e.target.value)}
          onBlur={() => (note !== (quote.note ?? "") ? onChange({ note }) : undefined)}
        />
      </label>
      <label>
        {t("job.quotes.tags")}
        <input
          value={tags}
          dir="auto"
          data-testid="ws-quote-tags"
          onChange={(e) => setTags(e.target.value)}
          onBlur={() => (tags !== quote.tags.join(", ") ? onChange({ tags: parseTags(tags) }) : undefined)}
        />
      </label>
    </div>
  );
}

/**
 * One quote of the panel: its words and speaker, its time (to its line in the transcript), play (its
 * span only), copy (`"…" — Name [mm:ss]`), its note and tags (saved when the field is left), a mark
 * when its words were edited since it was saved (with "use the new words"), and delete.
 */
export function QuoteItem({
  jobId,
  quote,
  speaker,
  citation,
  onPlay,
  onGoTo,
  onChanged,
}: {
  jobId: string;
  quote: Quote;
  speaker: string | null;
  citation: string;
  onPlay: (() => void) | null;
  onGoTo: () => void;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const clock = formatClock(quote.start, lang, { padMinutes: true });

  const change = async (body: PatchQuoteInput | null) => {
    setError(null);
    try {
      if (body) await patchQuote(jobId, quote.id, body);
      else await deleteQuote(jobId, quote.id);
      onChanged();
    } catch (e) {
      setError(errorText(t, e));
    }
  };

  const copy = async () => {
    setError(null);
    try {
      await navigator.clipboard.writeText(citation);
      setStatus(t("job.quotes.copied"));
      setTimeout(() => setStatus(null), 2500);
    } catch {
      setError(t("job.quotes.copyFailed"));
    }
  };

  return (
    <li className="ws-quote" data-testid="ws-quote" data-quote-id={quote.id} data-stale={quote.stale || undefined}>
      <blockquote className="ws-quote-text" data-testid="ws-quote-text" dir="auto">
        {quote.text}
      </blockquote>
      <p className="ws-quote-meta">
        {speaker ? (
          <span className="ws-speaker" data-testid="ws-quote-speaker">
            {speaker}
          </span>
        ) : null}
        <button
          type="button"
          className="ws-time"
          data-testid="ws-quote-time"
          aria-label={t("job.quotes.goTo", { time: clock })}
          onClick={onGoTo}
        >
          <time dateTime={isoDuration(quote.start)}>{clock}</time>
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          data-testid="ws-quote-play"
          disabled={!onPlay}
          aria-label={t("job.quotes.play", { time: clock })}
          onClick={() => onPlay?.()}
        >
          ▶
        </button>
        <button type="button" className="btn btn-secondary btn-small" data-testid="ws-quote-copy" onClick={copy}>
          {t("job.quotes.copy")}
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          data-testid="ws-quote-delete"
          onClick={() => void change(null)}
        >
          {t("job.quotes.delete")}
        </button>
        <span role="status" className="muted">
          {status}
        </span>
      </p>
      {quote.stale ? (
        <p className="ws-quote-stale" data-testid="ws-quote-stale">
          <strong>{t("job.quotes.changed")}</strong>{" "}
          <span dir="auto">{t("job.quotes.savedAs", { text: quote.savedText ?? "" })}</span>{" "}
          <button type="button" className="btn btn-secondary btn-small" onClick={() => void change({ accept: true })}>
            {t("job.quotes.accept")}
          </button>
        </p>
      ) : null}
      <QuoteFields quote={quote} onChange={(body) => void change(body)} />
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}
