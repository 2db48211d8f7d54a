import { type CreatedShare, SHARE_DAY_CHOICES, type Share } from "@kikitori/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { refetchAfterWrite } from "../api/refetch.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatDateTime } from "../job/format.ts";
import { copyToClipboard } from "../lib/clipboard.ts";
import { useLang } from "../routing/useLang.ts";
import { createShare, listShares, revokeShare } from "../shared-view/api.ts";

export const sharesKey = (jobId: string) => ["shares", jobId] as const;

/**
 * The job page's read-only links: make one (valid 1, 7, 30 or 90 days, with or without the audio)
 * and copy it (its token is shown only then: only a hash is kept), see the live links with their
 * expiry and last opening, and revoke any of them at once.
 */
export function SharePanel({ jobId }: { jobId: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const queryClient = useQueryClient();
  const links = useQuery({ queryKey: sharesKey(jobId), queryFn: ({ signal }) => listShares(jobId, signal) });
  const [days, setDays] = useState<number>(7);
  const [withAudio, setWithAudio] = useState(false);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedShare | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => void refetchAfterWrite(queryClient, sharesKey(jobId));

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      setCreated(await createShare(jobId, { expiresInDays: days, includeAudio: withAudio, language: lang }));
      refresh();
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (share: Share) => {
    setError(null);
    try {
      await revokeShare(jobId, share.id);
      if (created?.id === share.id) setCreated(null);
      setNotice(t("job.share.revoked"));
      refresh();
    } catch (err) {
      setError(errorText(t, err));
    }
  };

  return (
    <section className="ws-panel ws-share" aria-labelledby="ws-share-title" data-testid="ws-share">
      <h3 id="ws-share-title">{t("job.share.title")}</h3>
      <p className="hint">{t("job.share.lead")}</p>
      <form className="ws-share-form" onSubmit={(e) => void create(e)}>
        <label>
          {t("job.share.validFor")}{" "}
          <select data-testid="ws-share-days" value={String(days)} onChange={(e) => setDays(Number(e.target.value))}>
            {SHARE_DAY_CHOICES.map((d) => (
              <option key={d} value={String(d)}>
                {t(`job.share.days${d}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            data-testid="ws-share-audio"
            checked={withAudio}
            onChange={(e) => setWithAudio(e.target.checked)}
          />{" "}
          {t("job.share.includeAudio")}
        </label>
        <button
          type="submit"
          className="btn btn-primary btn-small"
          data-testid="ws-share-create"
          disabled={busy}
          aria-busy={busy}
        >
          {busy ? t("job.share.creating") : t("job.share.create")}
        </button>
      </form>
      {created ? <NewLink url={created.url} /> : null}
      {notice ? (
        <p className="hint" role="status">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <h4>{t("job.share.live")}</h4>
      {links.isPending ? (
        <p className="muted">{t("job.loading")}</p>
      ) : links.isError ? (
        <p className="field-error">{errorText(t, links.error)}</p>
      ) : (
        <LiveLinks shares={links.data.shares} onRevoke={(s) => void revoke(s)} />
      )}
    </section>
  );
}

/** The link just made, to copy now (it cannot be shown again). */
function NewLink({ url }: { url: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <div className="ws-share-new" data-testid="ws-share-new">
      <p role="status">{t("job.share.created")}</p>
      <div className="ws-share-copy">
        <input
          type="text"
          readOnly
          dir="ltr"
          data-testid="ws-share-url"
          aria-label={t("job.share.linkLabel")}
          value={url}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          className="btn btn-secondary btn-small"
          data-testid="ws-share-copy"
          onClick={() => void copyToClipboard(url).then(setCopied)}
        >
          {copied ? t("job.share.copied") : t("job.share.copy")}
        </button>
      </div>
    </div>
  );
}

/** The live links with their expiry, last opening and a Revoke button. */
function LiveLinks({ shares, onRevoke }: { shares: readonly Share[]; onRevoke: (share: Share) => void }) {
  const { t } = useTranslation();
  const lang = useLang();
  if (shares.length === 0) {
    return (
      <p className="muted" data-testid="ws-share-none">
        {t("job.share.none")}
      </p>
    );
  }
  return (
    <ul className="ws-versions ws-share-list">
      {shares.map((s) => (
        <li key={s.id} data-testid="ws-share-item" data-share-id={s.id}>
          <span className="ws-version-name">
            {s.includeAudio ? t("job.share.withAudio") : t("job.share.textOnly")} ·{" "}
            {t("job.share.expires", { date: formatDateTime(s.expiresAt, lang) })}
          </span>
          <span className="muted">
            {s.lastOpenedAt
              ? t("job.share.lastOpened", { date: formatDateTime(s.lastOpenedAt, lang) })
              : t("job.share.neverOpened")}
          </span>
          <button
            type="button"
            className="btn btn-secondary btn-small"
            data-testid="ws-share-revoke"
            onClick={() => onRevoke(s)}
          >
            {t("job.share.revoke")}
          </button>
        </li>
      ))}
    </ul>
  );
}
