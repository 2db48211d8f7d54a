import type { SpeechStatus } from "@kikitori/shared";
import { useTranslation } from "react-i18next";

/**
 * Says when the speech engine in use is not the one asked for (GET /api/speech `notice`), e.g. the rough
 * offline English engine because no Whisper model could be had: in plain words, what it means for the
 * user's recording and what they can do. The operator's detail (the setting, the reason) stays in the
 * logs and in GET /api/speech, never on screen. A status, not an error: uploads still work.
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
      {t(`transcription.speechNotice.${notice.code}`)}
    </p>
  );
}
