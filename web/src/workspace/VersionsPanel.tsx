import type { TranscriptionSnapshot, TranscriptVersionSummary } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { formatDateTime } from "../job/format.ts";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import { listVersions, restoreVersion } from "./api.ts";
import { versionOrdinals, versionTime } from "./versions.ts";

export const versionsKey = (jobId: string) => ["versions", jobId] as const;

/**
 * The kept versions of a job (the original AI output, the user's edits, restores), newest first, each
 * with a Restore button; a restore becomes the newest version, so nothing is ever lost. Waits while
 * edits are unsaved (the restore is based on the saved version).
 */
export function VersionsPanel({
  jobId,
  version,
  busy,
  onRestored,
}: {
  jobId: string;
  version: number;
  busy: boolean;
  onRestored: (snapshot: TranscriptionSnapshot) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const versions = useQuery({
    queryKey: [...versionsKey(jobId), version],
    queryFn: ({ signal }) => listVersions(jobId, signal),
  });
  const [restoring, setRestoring] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const restore = async (v: TranscriptVersionSummary) => {
    setRestoring(v.version);
    setError(null);
    try {
      onRestored(await restoreVersion(jobId, v.version, version));
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setRestoring(null);
    }
  };

  // Versions are shown numbered 1, 2, 3… in the order they were made, with no gaps where older
  // versions were pruned or several saves made one version; the server's numbers stay in data-version.
  const shown = versionOrdinals(versions.data?.versions ?? []);
  const kind = (v: TranscriptVersionSummary) => {
    if (v.kind !== "restore") return t(`job.versions.${v.kind}`);
    const from = v.restoredFrom === null ? undefined : shown.get(v.restoredFrom);
    return from === undefined ? t("job.versions.restoreEarlier") : t("job.versions.restore", { n: from });
  };

  return (
    <section className="ws-panel" aria-labelledby="ws-versions-title" data-testid="ws-versions">
      <h3 id="ws-versions-title">{t("job.versions.title")}</h3>
      {versions.isPending ? (
        <p className="muted">{t("job.loading")}</p>
      ) : versions.isError ? (
        <p className="field-error">{errorText(t, versions.error)}</p>
      ) : (
        <ul className="ws-versions">
          {versions.data.versions.map((v) => (
            <li key={v.version} data-testid="ws-version" data-version={v.version} data-kind={v.kind}>
              <span className="ws-version-name">
                {t("job.versions.number", { n: shown.get(v.version) ?? v.version })} · {kind(v)}
                {v.current ? <strong> · {t("job.versions.current")}</strong> : null}
              </span>
              <span className="muted">
                {/* The original AI output keeps the time it was made; an edit shows when it was last saved. */}
                <time dateTime={versionTime(v)}>{formatDateTime(versionTime(v), lang)}</time> ·{" "}
                {t("transcription.characterCount", { value: formatAmount(v.characterCount, lang, 0) })}
              </span>
              {!v.current ? (
                <button
                  type="button"
                  className="btn btn-secondary btn-small"
                  data-testid="ws-restore"
                  disabled={busy || restoring !== null}
                  aria-busy={restoring === v.version}
                  onClick={() => void restore(v)}
                >
                  {t("job.versions.restoreButton")}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
