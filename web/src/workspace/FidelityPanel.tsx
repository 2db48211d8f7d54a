import type { FidelityOp, FidelityReport } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { formatClock } from "../job/time.ts";
import { useLang } from "../routing/useLang.ts";
import { getFidelity } from "./api.ts";
import { marked } from "./Marked.tsx";

/** One side of the diff: the words both share, and this side's own words marked. */
function DiffSide({ ops, own, label }: { ops: FidelityOp[]; own: "removed" | "added"; label: string }) {
  return (
    <section className="ws-diff-side" dir="auto" aria-label={label} data-testid={`ws-diff-${own}`}>
      {ops
        .filter((o) => o.op === "same" || o.op === own)
        .map((o, i) =>
          o.op === own ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: positions in one diff
            <span key={i} className={own === "removed" ? "ws-del" : "ws-ins"}>
              {o.text}{" "}
            </span>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: positions in one diff
            <span key={i}>{o.text} </span>
          ),
        )}
    </section>
  );
}

/** `text` with the given character ranges marked (the words a passage does not have as they are). */
function markRanges(text: string, ranges: ReadonlyArray<readonly [number, number]>): ReactNode {
  const out: ReactNode[] = [];
  let at = 0;
  for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
    if (a < at || b > text.length) continue;
    if (a > at) out.push(text.slice(at, a));
    out.push(<mark key={a}>{text.slice(a, b)}</mark>);
    at = b;
  }
  out.push(text.slice(at));
  return out;
}

/** A button that plays the recording from a flag's passage (when the audio can be played). */
function PlayAt({ seconds, onSeek }: { seconds: number | null; onSeek: ((seconds: number) => void) | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  if (seconds === null || !onSeek) return null;
  return (
    <>
      <button
        type="button"
        className="ws-time"
        data-testid="ws-flag-play"
        onClick={() => onSeek(seconds)}
        aria-label={t("job.seekTo", { time: formatClock(seconds, lang) })}
      >
        {formatClock(seconds, lang)}
      </button>{" "}
    </>
  );
}

/**
 * One kind of flag: its heading, then each flagged passage (with a button playing it) or, when
 * there is none, the sentence saying so.
 */
function FlagList<T extends { startSeconds: number | null }>({
  title,
  kind,
  items,
  empty,
  onSeek,
  children,
}: {
  title: string;
  kind: string;
  items: readonly T[];
  empty: string;
  onSeek: ((seconds: number) => void) | null;
  children: (item: T) => ReactNode;
}) {
  return (
    <>
      <h4>{title}</h4>
      {items.length ? (
        <ul className="ws-flags" data-testid={`ws-${kind}`}>
          {items.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: flags in a fixed order, one report
            <li key={i} dir="auto" data-testid={`ws-${kind}-item`}>
              <PlayAt seconds={item.startSeconds} onSeek={onSeek} />
              {children(item)}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{empty}</p>
      )}
    </>
  );
}

/** What the check found: the figure, the glossary's fixes, the flagged sentences and passages, the diff. */
function FidelityReportView({
  report,
  onSeek,
}: {
  report: FidelityReport;
  onSeek: ((seconds: number) => void) | null;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const count = (n: number) => new Intl.NumberFormat(lang).format(n);
  return (
    <>
      {report.figure !== null ? (
        <p className="ws-fidelity-figure" data-testid="ws-fidelity-figure" data-value={report.figure}>
          <strong>
            {new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 1 }).format(report.figure)}
          </strong>{" "}
          {t("job.fidelity.figureSentences", {
            supported: report.supportedCount,
            total: report.sentenceCount,
          })}
        </p>
      ) : (
        <p className="muted">{t("job.fidelity.noInterview")}</p>
      )}

      {report.glossaryFixes.length ? (
        <>
          <h4>{t("transcription.glossary.fidelityTitle")}</h4>
          <ul className="ws-flags" data-testid="ws-glossary-fixes">
            {report.glossaryFixes.map((f) => (
              <li key={`${f.from}\u0000${f.to}`} dir="auto" data-testid="ws-glossary-fix">
                {t("transcription.glossary.fidelityItem", { from: f.from, to: f.to, times: count(f.count) })}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      <FlagList
        title={`${t("job.fidelity.inventedTitle")} (${count(report.invented.length)})`}
        kind="invented"
        items={report.invented}
        empty={t("job.fidelity.noneInventedSentences")}
        onSeek={onSeek}
      >
        {(f) => markRanges(f.sentence, f.marks)}
      </FlagList>

      <FlagList
        title={`${t("job.fidelity.misattributedTitle")} (${count(report.misattributed.length)})`}
        kind="misattributed"
        items={report.misattributed}
        empty={t("job.fidelity.noneMisattributed")}
        onSeek={onSeek}
      >
        {(f) => (
          <>
            {f.sentence}{" "}
            <span className="muted">{t("job.fidelity.misattributedItem", { label: f.label, heard: f.heard })}</span>
          </>
        )}
      </FlagList>

      <FlagList
        title={`${t("job.fidelity.rewordedTitle")} (${count(report.reworded.length)})`}
        kind="reworded"
        items={report.reworded}
        empty={t("job.fidelity.noneReworded")}
        onSeek={onSeek}
      >
        {(f) => (
          <>
            {markRanges(f.sentence, f.marks)}{" "}
            <span className="muted">{t("job.fidelity.rewordedHeard", { text: f.heardText })}</span>
          </>
        )}
      </FlagList>

      <FlagList
        title={t("job.fidelity.dropped", { count: report.dropped.length })}
        kind="dropped"
        items={report.dropped}
        empty={t("job.fidelity.noneDropped")}
        onSeek={onSeek}
      >
        {(d) => marked(d.text, d.words, { wholeWords: true })}
      </FlagList>

      {report.diff ? (
        <details className="ws-diff" data-testid="ws-diff">
          <summary>{t("job.fidelity.diff")}</summary>
          <div className="ws-diff-cols">
            <DiffSide ops={report.diff} own="removed" label={t("transcription.transcriptTitle")} />
            <DiffSide ops={report.diff} own="added" label={t("transcription.correctedTitle")} />
          </div>
        </details>
      ) : (
        <p className="muted">{t("job.fidelity.diffTooLarge")}</p>
      )}
    </>
  );
}

/**
 * The fidelity view: the share of the interview's sentences supported by the passage of the
 * recording they were aligned to; the sentences no passage supports (invented), those under another
 * speaker's name than the voice heard (misattributed), those with words changed (reworded), and the
 * passages the interview left out (dropped), each with a button playing its passage; and the raw
 * transcript beside the interview with the word-level differences marked. Worked out by the server on
 * the current texts when opened.
 */
export function FidelityPanel({
  jobId,
  version,
  onSeek,
}: {
  jobId: string;
  version: number;
  onSeek: ((seconds: number) => void) | null;
}) {
  const { t } = useTranslation();
  // The version last checked: an edit does not run the check again by itself (each autosave would
  // cost the server a report); the button comes back to check the newer texts.
  const [checked, setChecked] = useState<number | null>(null);
  const report = useQuery({
    queryKey: ["fidelity", jobId, checked],
    queryFn: ({ signal }) => getFidelity(jobId, signal),
    enabled: checked !== null,
  });

  return (
    <section className="ws-panel ws-fidelity" aria-labelledby="ws-fidelity-title" data-testid="ws-fidelity">
      <h3 id="ws-fidelity-title">{t("job.fidelity.title")}</h3>
      <p className="muted">{t("job.fidelity.lead")}</p>
      {checked !== version ? (
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="ws-fidelity-open"
          onClick={() => setChecked(version)}
        >
          {t("job.fidelity.open")}
        </button>
      ) : null}
      {checked === null ? null : report.isPending ? (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("job.loading")}
        </p>
      ) : report.isError ? (
        <p className="field-error" role="alert">
          {errorText(t, report.error)}
        </p>
      ) : (
        <FidelityReportView report={report.data} onSeek={onSeek} />
      )}
    </section>
  );
}
