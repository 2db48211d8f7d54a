import { useState } from "react";
import { useTranslation } from "react-i18next";
import { accountApi, exportFileName } from "../auth/accountApi.ts";
import { errorText } from "../i18n/errorText.ts";
import { type Outcome, OutcomeBox, saveFile } from "./accountForms.tsx";

/** Saves the account's data as a JSON file (fetched with the session's token). */
async function downloadData(): Promise<void> {
  const data = await accountApi.export();
  saveFile(exportFileName(new Date()), JSON.stringify(data, null, 2), "application/json");
}

export function DownloadButton({ testId, onDone }: { testId: string; onDone?: (ok: boolean, err?: unknown) => void }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-secondary"
      data-testid={testId}
      disabled={busy}
      aria-busy={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await downloadData();
          onDone?.(true);
        } catch (err) {
          onDone?.(false, err);
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? t("account.data.downloading") : t("account.data.download")}
    </button>
  );
}

/** "Download your data": everything stored about the account as one JSON file. */
export function DataDownload() {
  const { t } = useTranslation();
  const [outcome, setOutcome] = useState<Outcome>(null);
  return (
    <section className="card account-card" aria-labelledby="account-data-title">
      <h2 id="account-data-title" className="section-title">
        {t("account.data.title")}
      </h2>
      <p>{t("account.data.body")}</p>
      <OutcomeBox outcome={outcome} testId="account-data-message" />
      <div className="button-row">
        <DownloadButton
          testId="account-download"
          onDone={(ok, err) =>
            setOutcome(
              ok
                ? { ok: true, message: t("account.data.ready") }
                : { ok: false, message: errorText(t, err), cause: err },
            )
          }
        />
      </div>
    </section>
  );
}
