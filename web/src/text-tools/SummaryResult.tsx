import { charCount } from "@kikitori/shared";
import type { Ref } from "react";
import { useTranslation } from "react-i18next";
import type { CopyState } from "./useTextTool.ts";

/** "“a”, “b” and “c”" in the UI language (quoted, so a phrase's own commas cannot blur the list). */
function listOf(items: readonly string[], lang: string): string {
  const quoted = items.map((p) => `“${p}”`);
  try {
    return new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(quoted);
  } catch {
    return quoted.join(", ");
  }
}

/** The summary with its length, the required phrases it had to bring in, and the copy button. */
export function SummaryResult({
  ref,
  summary,
  missing,
  copied,
  onCopy,
  lang,
}: {
  ref: Ref<HTMLElement>;
  summary: string | null;
  /** Required phrases the text did not contain. */
  missing: string[];
  copied: CopyState;
  onCopy: () => void;
  lang: string;
}) {
  const { t } = useTranslation();
  return (
    <section ref={ref} className="card tt-card tt-result" aria-labelledby="summary-result-title">
      <div className="tt-result-head">
        <h2 id="summary-result-title" className="section-title">
          {t("summary.resultTitle")}
        </h2>
        <span className="hint">{t("summary.charCount", { count: charCount(summary ?? "") })}</span>
      </div>
      {missing.length > 0 ? (
        <div className="alert alert-warning" role="status" data-testid="summary-missing" data-count={missing.length}>
          {t("summary.missingPhrases", { phrases: listOf(missing, lang) })}
        </div>
      ) : null}
      <div className="tt-output" data-testid="summary-result" dir="auto">
        {summary}
      </div>
      <div className="tt-copy">
        <span
          className={copied === "failed" ? "tt-copy-note failed" : "tt-copy-note"}
          role="status"
          data-testid="summary-copied"
        >
          {copied === "copied" ? t("messages.summaryCopied") : copied === "failed" ? t("summary.copyFailed") : ""}
        </span>
        <button type="button" className="btn btn-secondary" data-testid="summary-copy" onClick={onCopy}>
          {t("summary.copy")}
        </button>
      </div>
    </section>
  );
}
