import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useAudioSource } from "../job/useAudioSource.ts";

/** The player for the stored audio, or the retention-expired notice. */
export function AudioPlayer({
  url,
  expired,
  onExpired,
  audioRef,
}: {
  url: string | null;
  expired: boolean;
  onExpired: () => void;
  /** The <audio> element's ref callback (the timed transcript seeks and plays through it). */
  audioRef?: (el: HTMLAudioElement | null) => void;
}) {
  const { t } = useTranslation();
  const source = useAudioSource(expired ? null : url);
  const isExpired = expired || source.status === "expired";

  useEffect(() => {
    if (source.status === "expired") onExpired();
  }, [source.status, onExpired]);

  if (isExpired) {
    return (
      <p className="alert alert-info" data-testid="tx-audio-expired" role="status">
        {t("messages.retentionExpired")}
      </p>
    );
  }
  if (source.status === "none") return null;
  if (source.status === "loading") {
    return (
      <p className="status-line tx-audio-status" role="status">
        <span className="spinner" aria-hidden="true" />
        {t("transcription.audioLoading")}
      </p>
    );
  }
  if (source.status === "error") {
    return <p className="muted tx-audio-status">{t("transcription.audioLoadFailed")}</p>;
  }
  return (
    // biome-ignore lint/a11y/useMediaCaption: an interview recording has no caption track; the transcript is the text alternative
    <audio
      ref={audioRef}
      className="tx-audio"
      data-testid="tx-audio"
      controls
      preload="metadata"
      src={source.src}
      onError={(e) => {
        // Only a real media error of the current source (not an unmount) is reported.
        if (e.currentTarget.error) window.alert(t("messages.audioExpired"));
      }}
    >
      {t("messages.audioNotSupported")}
    </audio>
  );
}
