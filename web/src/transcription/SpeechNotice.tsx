import type { SpeechStatus } from "@kikitori/shared";
import { useTranslation } from "react-i18next";

/**
 * Says when the speech engine in use is not the one asked for (GET /api/speech `notice`), e.g. the rough
 * offline English engine because no Whisper model could be had, and names the setting an operator
 * changes. A status, not an error: uploads still work.
 */
export function SpeechNotice({ status }: { status: SpeechStatus }) {
  const { t } = useTranslation();
  const { notice } = status;
  if (!notice) return null;
  return (
    <p
      className="alert alert-warning tx-speech-notice"
      role="status"
      data-testid="tx-speech-notice"
      data-code={notice.code}
    >
      {t(`transcription.speechNotice.${notice.code}`, { setting: notice.setting })}
    </p>
  );
}
