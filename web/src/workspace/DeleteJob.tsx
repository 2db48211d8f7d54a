import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { refetchAfterWrite } from "../api/refetch.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { deleteTranscription } from "./api.ts";

/**
 * "Delete" on the job page, confirmed in place (the same words as in the library); once deleted, the
 * library opens. Cancel puts the focus back on the Delete button.
 */
export function DeleteJob({ jobId }: { jobId: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteTranscription(jobId);
      await refetchAfterWrite(queryClient, ["library"]);
      navigate(localePath(lang, ROUTES.library));
    } catch (e) {
      setError(errorText(t, e));
      setBusy(false);
    }
  };

  if (!confirming) {
    return (
      <button
        ref={button}
        type="button"
        className="btn btn-secondary btn-small ws-delete"
        data-testid="ws-delete"
        onClick={() => setConfirming(true)}
      >
        {t("library.delete")}
      </button>
    );
  }
  return (
    <div className="ws-delete-confirm" role="alert" data-testid="ws-delete-confirm-box">
      <span>{t("library.confirmDelete")}</span>
      <button
        type="button"
        className="btn btn-danger btn-small"
        data-testid="ws-delete-confirm"
        disabled={busy}
        aria-busy={busy}
        onClick={() => void remove()}
      >
        {t("library.delete")}
      </button>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        disabled={busy}
        onClick={() => {
          setConfirming(false);
          requestAnimationFrame(() => button.current?.focus());
        }}
      >
        {t("library.cancel")}
      </button>
      {error ? <p className="field-error">{error}</p> : null}
    </div>
  );
}
