import { REQUIRED_PHRASES_MAX, REQUIRED_PHRASES_MIN } from "@kikitori/shared";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { addPhraseRow, removePhraseRow } from "./logic.ts";

/** The summary's required phrases: one row each, rows added (and focused) or removed within the limits. */
export function PhraseFields({
  phrases,
  onChange,
  disabled,
}: {
  phrases: string[];
  onChange: (update: (rows: string[]) => string[]) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const focusPhrase = useRef<number | null>(null);

  const setPhrase = (i: number, value: string) => onChange((rows) => rows.map((r, k) => (k === i ? value : r)));
  const addPhrase = () => {
    focusPhrase.current = phrases.length;
    onChange(addPhraseRow);
  };
  const removePhrase = (i: number) => onChange((rows) => removePhraseRow(rows, i));

  return (
    <fieldset className="field tt-phrases" disabled={disabled}>
      <legend>{t("summary.phrasesLabel")}</legend>
      <p className="hint">{t("summary.phrasesHint", { min: REQUIRED_PHRASES_MIN })}</p>
      {phrases.map((p, i) => (
        // Rows have no identity but their position: removing one shifts the rest, as intended.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div className="tt-phrase-row" key={i}>
          <input
            ref={(el) => {
              // A row just added gets the focus.
              if (el && focusPhrase.current === i) {
                el.focus();
                focusPhrase.current = null;
              }
            }}
            data-testid={`summary-phrase-${i}`}
            aria-label={t("summary.phraseLabel", { n: i + 1 })}
            placeholder={t("summary.phrasePlaceholder", { n: i + 1 })}
            value={p}
            onChange={(e) => setPhrase(i, e.target.value)}
          />
          <button
            type="button"
            className="btn btn-ghost tt-remove"
            data-testid={`summary-remove-phrase-${i}`}
            onClick={() => removePhrase(i)}
            disabled={phrases.length <= REQUIRED_PHRASES_MIN}
            aria-label={t("summary.removePhrase", { n: i + 1 })}
            title={t("summary.removePhrase", { n: i + 1 })}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="btn btn-secondary tt-add"
        data-testid="summary-add-phrase"
        onClick={addPhrase}
        disabled={phrases.length >= REQUIRED_PHRASES_MAX}
      >
        {t("summary.addPhrase")}
      </button>
    </fieldset>
  );
}
