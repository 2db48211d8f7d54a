import { type JobSpeaker, type Quote, quoteCitation, type TranscriptSegment } from "@kikitori/shared";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { refetchAfterWrite } from "../api/refetch.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatClock } from "../job/time.ts";
import { activeSegment } from "../job/usePlayer.ts";
import { useSpeakerName } from "../job/useSpeakerNames.ts";
import { saveBlob } from "../lib/download.ts";
import { useLang } from "../routing/useLang.ts";
import { fetchExport } from "../transcription/api.ts";
import { QuoteItem } from "./QuoteItem.tsx";
import { createQuote, listQuotes } from "./quotesApi.ts";
import { type TranscriptSelection, useTranscriptSelection } from "./useTranscriptSelection.ts";

const QUOTE_FORMATS = ["docx", "md", "txt"] as const;

/** Ctrl+Shift+Enter saves the selection as a quote (from the transcript, where Tab goes line by line). */
const isSaveChord = (e: KeyboardEvent) => e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey && e.key === "Enter";

/** Runs `action` on a key chord anywhere on the page (the latest `action`). */
function useChord(matches: (e: KeyboardEvent) => boolean, action: () => unknown) {
  const latest = useRef(action);
  latest.current = action;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!matches(e)) return;
      e.preventDefault();
      void latest.current();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [matches]);
}

/** "Download quotes" as Word, Markdown or text (each quote with its time, speaker, note and tags). */
function QuoteExport({ jobId, onError }: { jobId: string; onError: (message: string | null) => void }) {
  const { t } = useTranslation();
  const [format, setFormat] = useState<(typeof QUOTE_FORMATS)[number]>("docx");
  const download = async () => {
    onError(null);
    try {
      const { blob, fileName } = await fetchExport(jobId, format, "quotes");
      saveBlob(blob, fileName);
    } catch (e) {
      onError(errorText(t, e));
    }
  };
  return (
    <div className="ws-quote-export">
      <label>
        {t("transcription.exportFormat")}{" "}
        <select
          data-testid="ws-quote-format"
          value={format}
          onChange={(e) => setFormat(e.target.value as (typeof QUOTE_FORMATS)[number])}
        >
          {QUOTE_FORMATS.map((f) => (
            <option key={f} value={f}>
              {t(`transcription.exportFormats.${f}`)}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        data-testid="ws-quote-download"
        onClick={() => void download()}
      >
        {t("job.quotes.export")}
      </button>
    </div>
  );
}

/** The selection a quote would take (its times and words) and the Save quote button. */
function QuoteSaveBar({
  selection,
  missed,
  busy,
  onSave,
}: {
  selection: TranscriptSelection | null;
  /** Words selected in the interview text were not found in the transcript. */
  missed: boolean;
  busy: boolean;
  onSave: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <div className="ws-quote-save">
      {selection ? (
        <p className="ws-quote-selection" data-testid="ws-quote-selection">
          <span className="muted">
            {t("job.quotes.selection", {
              from: formatClock(selection.start, lang, { padMinutes: true }),
              to: formatClock(selection.end, lang, { padMinutes: true }),
            })}
          </span>{" "}
          <q dir="auto">{selection.text}</q>
        </p>
      ) : missed ? (
        <p className="hint" data-testid="ws-quote-missed">
          {t("job.quotes.notFound")}
        </p>
      ) : (
        <p className="hint">{t("job.quotes.hint")}</p>
      )}
      <button
        type="button"
        className="btn btn-primary btn-small"
        data-testid="ws-quote-save"
        disabled={!selection || busy}
        aria-busy={busy}
        aria-keyshortcuts="Control+Shift+Enter"
        // The transcript keeps its selection while the button is pressed.
        onMouseDown={(e) => e.preventDefault()}
        onClick={onSave}
      >
        {t("job.quotes.save")}
      </button>
    </div>
  );
}

/**
 * The job's quotes: select words in the transcript (or in the interview text: the transcript's words
 * it was made from are taken) and "Save quote" (or Ctrl+Shift+Enter); each quote
 * plays its span, copies as `"…" — Name [mm:ss]`, jumps to its line, takes a note and tags, and is
 * deleted; a quote whose words were edited since is marked until its new words are accepted. The
 * quotes download as Word, Markdown or text.
 */
export function QuotesPanel({
  jobId,
  version,
  segments,
  texts,
  speakers,
  language,
  onPlaySpan,
  onSeek,
  beforeSave,
  interviewId,
}: {
  jobId: string;
  /** The job's version: the quotes are read again after each saved edit. */
  version: number;
  segments: readonly TranscriptSegment[];
  /** The segments' texts as edited on the page. */
  texts: readonly string[];
  speakers: readonly JobSpeaker[];
  language: string;
  /** Plays a span (null: no audio). */
  onPlaySpan: ((start: number, end: number) => void) | null;
  onSeek: ((seconds: number) => void) | null;
  /** Saves pending edits first, so the quote is cut from the words shown. */
  beforeSave: () => Promise<void>;
  /** The interview text's textarea: words selected there are looked for in the transcript. */
  interviewId?: string;
}) {
  const { t } = useTranslation();
  const shownName = useSpeakerName();
  const client = useQueryClient();
  const key = ["quotes", jobId, version] as const;
  // The list stays on screen while a saved edit's version is read.
  const quotes = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => listQuotes(jobId, signal),
    placeholderData: keepPreviousData,
  });
  const { selection, missed, clear } = useTranscriptSelection(segments, texts, language, interviewId);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  /** The name shown on the page for a quote's speaker (a default name in the interface language). */
  const nameOf = (q: Quote) => {
    const sp = speakers.find((s) => s.name === q.speaker);
    return sp ? shownName(sp) : q.speaker;
  };

  // A save of pending edits just before may have started a read of the new version before this write.
  const refresh = () => refetchAfterWrite(client, ["quotes", jobId]);

  const save = async () => {
    if (!selection || busy) return;
    setBusy(true);
    setError(null);
    try {
      await beforeSave();
      await createQuote(jobId, { start: selection.start, end: selection.end });
      clear();
      await refresh();
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setBusy(false);
    }
  };
  useChord(isSaveChord, save);

  /** The line a quote starts in: into view, its time focused, the audio there. */
  const goTo = (q: Quote) => {
    const index = Math.max(
      0,
      activeSegment(
        segments.map((s) => s.start),
        q.start,
      ),
    );
    const li = document.querySelector<HTMLElement>(`li.ws-segment[data-index="${index}"]`);
    li?.scrollIntoView({ block: "center" });
    li?.querySelector<HTMLElement>('[data-control="time"]:not(:disabled), [data-control="text"]')?.focus();
    onSeek?.(q.start);
  };

  const list = quotes.data ?? [];
  return (
    <section className="ws-quotes" aria-labelledby="ws-quotes-title" data-testid="ws-quotes">
      <h3 id="ws-quotes-title">{t("job.quotes.title")}</h3>
      <QuoteSaveBar selection={selection} missed={missed} busy={busy} onSave={() => void save()} />
      {error ? (
        <p className="field-error" role="alert" data-testid="ws-quote-error">
          {error}
        </p>
      ) : null}
      {quotes.isError ? <p className="field-error">{errorText(t, quotes.error)}</p> : null}
      {quotes.isSuccess && list.length === 0 ? <p className="muted">{t("job.quotes.none")}</p> : null}
      {list.length ? (
        <>
          <ol className="ws-quote-list" data-testid="ws-quote-list">
            {list.map((q) => (
              <QuoteItem
                key={q.id}
                jobId={jobId}
                quote={q}
                speaker={nameOf(q)}
                citation={quoteCitation({ text: q.text, speaker: nameOf(q), start: q.start }, language)}
                onPlay={onPlaySpan ? () => onPlaySpan(q.start, q.end) : null}
                onGoTo={() => goTo(q)}
                onChanged={() => void refresh()}
              />
            ))}
          </ol>
          <QuoteExport jobId={jobId} onError={setError} />
        </>
      ) : null}
    </section>
  );
}
