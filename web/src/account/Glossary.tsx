import { GLOSSARY_MAX_TERMS, GLOSSARY_TERM_MAX, termsFromLines } from "@kikitori/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { useLang } from "../routing/useLang.ts";
import { type Outcome, OutcomeBox } from "./accountForms.tsx";
import { glossaryApi } from "./glossaryApi.ts";

/**
 * "Glossary": names and terms, one per line, that transcripts and interview texts write exactly as
 * listed (Whisper is told them, the correction writes them so). At most 500 terms of 100 characters;
 * blank lines and repeats are dropped when saved.
 */
export function Glossary() {
  const { t } = useTranslation();
  const lang = useLang();
  const client = useQueryClient();
  const stored = useQuery({ queryKey: ["glossary"], queryFn: ({ signal }) => glossaryApi.get(signal) });
  const [text, setText] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  useEffect(() => {
    if (stored.data && text === null) setText(stored.data.terms.join("\n"));
  }, [stored.data, text]);

  const terms = termsFromLines(text ?? "");
  const tooLong = terms.find((term) => term.length > GLOSSARY_TERM_MAX);
  const problem =
    terms.length > GLOSSARY_MAX_TERMS
      ? t("account.glossary.tooMany", { max: GLOSSARY_MAX_TERMS })
      : tooLong
        ? t("account.glossary.tooLong", { term: `${tooLong.slice(0, 30)}…`, max: GLOSSARY_TERM_MAX })
        : null;
  const count = (n: number) => new Intl.NumberFormat(lang).format(n);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (problem) return setOutcome({ ok: false, message: problem });
    setBusy(true);
    setOutcome(null);
    try {
      const saved = await glossaryApi.put(terms);
      client.setQueryData(["glossary"], saved);
      setText(saved.terms.join("\n"));
      setOutcome({ ok: true, message: t("account.glossary.saved") });
    } catch (err) {
      setOutcome({ ok: false, message: errorText(t, err), cause: err });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card account-card" aria-labelledby="account-glossary-title" data-testid="account-glossary">
      <h2 id="account-glossary-title" className="section-title">
        {t("account.glossary.title")}
      </h2>
      <p className="hint">{t("account.glossary.body")}</p>
      {stored.isError ? (
        <OutcomeBox
          outcome={{ ok: false, message: errorText(t, stored.error), cause: stored.error }}
          testId="account-glossary-load-error"
        />
      ) : null}
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <div className="field">
          <label htmlFor="account-glossary-terms">{t("account.glossary.label")}</label>
          <textarea
            id="account-glossary-terms"
            data-testid="account-glossary-terms"
            rows={8}
            value={text ?? ""}
            placeholder={t("account.glossary.placeholder")}
            onChange={(e) => setText(e.target.value)}
            disabled={busy || (stored.isPending && text === null)}
            aria-describedby="account-glossary-count"
            aria-invalid={problem ? true : undefined}
            spellCheck={false}
          />
          <p
            id="account-glossary-count"
            className={problem ? "field-error" : "hint"}
            data-testid="account-glossary-count"
          >
            {problem ?? t("account.glossary.count", { n: count(terms.length), max: count(GLOSSARY_MAX_TERMS) })}
          </p>
        </div>
        <OutcomeBox outcome={outcome} testId="account-glossary-message" />
        <div className="button-row">
          <button
            type="submit"
            className="btn btn-primary"
            data-testid="account-glossary-save"
            disabled={busy || text === null}
          >
            {busy ? t("account.glossary.saving") : t("account.glossary.save")}
          </button>
        </div>
      </form>
    </section>
  );
}
