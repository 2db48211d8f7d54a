import {
  CUSTOM_PROMPT_MAX,
  checkTitlesRequest,
  HEADING_COUNT_MAX,
  TITLE_COUNT_MAX,
  TITLE_DEFAULTS,
} from "@kikitori/shared";
import { type FormEvent, type RefObject, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { useReveal } from "../components/useReveal.ts";
import { generateTitles } from "./api.ts";
import { composeArticle, intOf, placeHeadings, textFromNavigation } from "./logic.ts";
import { useTextTool } from "./useTextTool.ts";
import "./text-tools.css";

interface Result {
  text: string;
  titles: string[];
  headings: string[];
}

const headingId = (i: number) => `generated-heading-${i}`;

/** How many sub-headings per article and how many titles to ask for. */
function TitleCountFields({
  numHeadings,
  numTitles,
  onHeadings,
  onTitles,
  disabled,
}: {
  numHeadings: string;
  numTitles: string;
  onHeadings: (value: string) => void;
  onTitles: (value: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  return (
    <div className="tt-row">
      <div className="field tt-narrow">
        <label htmlFor="titles-num-headings">{t("titles.numHeadingsLabel")}</label>
        <input
          id="titles-num-headings"
          data-testid="titles-num-headings"
          type="number"
          inputMode="numeric"
          min={1}
          max={HEADING_COUNT_MAX}
          step={1}
          value={numHeadings}
          onChange={(e) => onHeadings(e.target.value)}
          disabled={disabled}
        />
      </div>
      <div className="field tt-narrow">
        <label htmlFor="titles-num-titles">{t("titles.numTitlesLabel")}</label>
        <input
          id="titles-num-titles"
          data-testid="titles-num-titles"
          type="number"
          inputMode="numeric"
          min={1}
          max={TITLE_COUNT_MAX}
          step={1}
          value={numTitles}
          onChange={(e) => onTitles(e.target.value)}
          disabled={disabled}
        />
      </div>
    </div>
  );
}

/** Moves to a generated heading in the text and gives it the focus. */
function scrollToHeading(i: number) {
  const el = document.getElementById(headingId(i));
  el?.scrollIntoView({ behavior: "smooth", block: "start" });
  el?.focus({ preventScroll: true });
}

/** The answer: the titles, a link per sub-heading, the text with its headings placed, and copying it all. */
function TitlesResult({
  result,
  sectionRef,
  copied,
  onCopy,
}: {
  result: Result;
  sectionRef: RefObject<HTMLElement | null>;
  copied: ReturnType<typeof useTextTool>["copied"];
  onCopy: () => void;
}) {
  const { t } = useTranslation();
  const parts = useMemo(() => placeHeadings(result.text, result.headings), [result]);
  return (
    <section
      ref={sectionRef}
      className="card tt-card tt-result"
      aria-labelledby="titles-result-title"
      data-testid="titles-result"
    >
      <h2 id="titles-result-title" className="section-title">
        {t("titles.titlesTitle")}
      </h2>
      <ol className="tt-titles" data-testid="titles-list" dir="auto">
        {result.titles.map((title, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: titles are shown in the server's order
          <li key={i}>{title}</li>
        ))}
      </ol>

      <h2 className="section-title">{t("titles.outputTitle")}</h2>
      <nav className="tt-heading-links" aria-label={t("titles.headingLinks")}>
        {result.headings.map((h, i) => (
          <button
            // biome-ignore lint/suspicious/noArrayIndexKey: one link per heading index
            key={i}
            type="button"
            className="btn btn-ghost tt-heading-link"
            data-testid={`titles-heading-link-${i}`}
            onClick={() => scrollToHeading(i)}
            dir="auto"
          >
            {h}
          </button>
        ))}
      </nav>
      <article className="tt-output tt-article" data-testid="titles-output" dir="auto">
        {parts.map((p, k) =>
          p.kind === "heading" ? (
            <h3
              // biome-ignore lint/suspicious/noArrayIndexKey: parts never reorder
              key={k}
              id={headingId(p.index)}
              tabIndex={-1}
              className="tt-heading"
              data-testid={`titles-heading-${p.index}`}
            >
              {p.text}
            </h3>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts never reorder
            <p key={k} className="tt-block">
              {p.text}
            </p>
          ),
        )}
      </article>
      <div className="tt-copy">
        <span className={copied === "failed" ? "tt-copy-note failed" : "tt-copy-note"} role="status">
          {copied === "copied" ? t("titles.copied") : copied === "failed" ? t("titles.copyFailed") : ""}
        </span>
        <button type="button" className="btn btn-secondary" data-testid="titles-copy" onClick={onCopy}>
          {t("titles.copy")}
        </button>
      </div>
    </section>
  );
}

/**
 * The title/heading screen (rules: checkTitlesRequest): text, number of sub-headings and titles, custom
 * request; the answer shows the titles and the text with each heading at the start of its block of
 * ceil(lines / headings) lines, with a scroll-to-heading link per index.
 */
export function TitlesPage() {
  const { t } = useTranslation();
  const { busy, error, copied, run, copy, lang } = useTextTool("titles.failed", "Title generation failed");
  usePageMeta("titles");

  // "Summarise this interview" / "Titles for this interview" arrive with the interview text.
  const navState = useLocation().state;
  const [text, setText] = useState(() => textFromNavigation(navState));
  const [numHeadings, setNumHeadings] = useState(String(TITLE_DEFAULTS.numHeadings));
  const [numTitles, setNumTitles] = useState(String(TITLE_DEFAULTS.numTitles));
  const [custom, setCustom] = useState("");
  const [result, setResult] = useState<Result | null>(null);

  const resultRef = useRef<HTMLElement>(null);
  useReveal(resultRef, result);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const request = (uid: string) => ({
      uid,
      originalText: text,
      numHeadingsPerArticle: intOf(numHeadings),
      numTitles: intOf(numTitles),
      customPrompt: custom,
      language: lang,
    });
    void run({
      validate: () => checkTitlesRequest(request("")),
      request: (uid, signal) => generateTitles(request(uid), signal),
      onSuccess: (res) => setResult({ text, titles: res.titles, headings: res.headings }),
    });
  };

  const onCopy = async () => {
    if (!result) return;
    const titles = result.titles.map((x, i) => `${i + 1}. ${x}`).join("\n");
    await copy(`${t("titles.titlesTitle")}\n${titles}\n\n${composeArticle(result.text, result.headings)}`);
  };

  return (
    <section className="page tt-page">
      <PageHeader title={t("tools.titles.title")} lead={t("tools.titles.description")} />

      <form className="card tt-card form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <div className="field">
          <label htmlFor="titles-text">{t("titles.textLabel")}</label>
          <textarea
            id="titles-text"
            data-testid="titles-text"
            className="tt-textarea"
            dir="auto"
            rows={12}
            value={text}
            placeholder={t("titles.textPlaceholder")}
            onChange={(e) => setText(e.target.value)}
            disabled={busy}
          />
        </div>
        <TitleCountFields
          numHeadings={numHeadings}
          numTitles={numTitles}
          onHeadings={setNumHeadings}
          onTitles={setNumTitles}
          disabled={busy}
        />
        <div className="field">
          <label htmlFor="titles-custom">{t("titles.customLabel")}</label>
          <textarea
            id="titles-custom"
            data-testid="titles-custom"
            rows={2}
            maxLength={CUSTOM_PROMPT_MAX}
            value={custom}
            placeholder={t("titles.customPlaceholder")}
            onChange={(e) => setCustom(e.target.value)}
            disabled={busy}
          />
          <p className="hint">{t("titles.customHint")}</p>
        </div>

        {error ? <ErrorAlert message={error.message} error={error.cause} testId="titles-error" /> : null}

        <div className="button-row">
          <button
            type="submit"
            className="btn btn-primary"
            data-testid="titles-generate"
            disabled={busy}
            aria-busy={busy}
          >
            {busy ? (
              <>
                <span className="spinner" aria-hidden="true" />
                {t("titles.generating")}
              </>
            ) : (
              t("titles.generate")
            )}
          </button>
        </div>
      </form>

      {result ? (
        <TitlesResult result={result} sectionRef={resultRef} copied={copied} onCopy={() => void onCopy()} />
      ) : null}
    </section>
  );
}
