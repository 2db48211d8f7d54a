import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import type { SaveState } from "./useJobEditor.ts";

/** "All changes saved" / "Unsaved changes" / "Saving…" / a conflict with "Load the latest version". */
export function SaveStatus({
  state,
  error,
  onReload,
  onRetry,
}: {
  state: SaveState;
  error: unknown;
  onReload: () => void;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  if (state === "conflict") {
    return (
      <div className="alert alert-warning ws-save" role="alert" data-testid="ws-save-state" data-state={state}>
        <span>{t("errors.VERSION_CONFLICT")}</span>{" "}
        <button type="button" className="btn btn-secondary btn-small" data-testid="ws-reload" onClick={onReload}>
          {t("job.loadLatest")}
        </button>
      </div>
    );
  }
  if (state === "error") {
    return (
      <div className="alert alert-error ws-save" role="alert" data-testid="ws-save-state" data-state={state}>
        <span>{t("job.saveFailed", { reason: errorText(t, error) })}</span>{" "}
        <button type="button" className="btn btn-secondary btn-small" onClick={onRetry}>
          {t("job.saveNow")}
        </button>
      </div>
    );
  }
  return (
    <p className={`ws-save ws-save-${state}`} role="status" data-testid="ws-save-state" data-state={state}>
      {t(`job.save.${state}`)}
    </p>
  );
}
