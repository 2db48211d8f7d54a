import { useTranslation } from "react-i18next";
import { formatRate } from "../job/format.ts";
import type { AudioSource } from "../job/useAudioSource.ts";
import { PLAYBACK_RATES, type Player } from "../job/usePlayer.ts";
import { useLang } from "../routing/useLang.ts";
import { InsertTimestamp } from "./InsertTimestamp.tsx";
import type { JobEditor } from "./useJobEditor.ts";

/**
 * The job page's player: the audio with its speed and the button that puts the time into the
 * interview text, or why there is no audio (gone, failed to load, still loading).
 */
export function PlayerCard({
  audio,
  gone,
  player,
  editor,
  interviewEditable,
  onAudioError,
}: {
  audio: AudioSource;
  /** The recording is no longer kept. */
  gone: boolean;
  player: Player;
  editor: JobEditor;
  /** The interview text is there and can be edited (the time can be put into it). */
  interviewEditable: boolean;
  onAudioError: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <div className="card ws-player">
      {gone ? (
        <p className="alert alert-info" role="status" data-testid="ws-audio-gone">
          {t("job.audioGone")}
        </p>
      ) : audio.status === "ready" ? (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: the timed transcript below is the text alternative */}
          <audio
            ref={player.attach}
            className="tx-audio"
            data-testid="ws-audio"
            controls
            preload="auto"
            src={audio.src}
            onError={(e) => {
              if (e.currentTarget.error) onAudioError();
            }}
          />
          <div className="ws-player-row">
            <label className="ws-speed">
              {t("job.speed")}
              <select
                data-testid="ws-speed"
                value={String(player.rate)}
                onChange={(e) => player.setRate(Number(e.target.value))}
              >
                {PLAYBACK_RATES.map((r) => (
                  <option key={r} value={String(r)}>
                    {formatRate(r, lang)}
                  </option>
                ))}
              </select>
            </label>
            {interviewEditable ? (
              <InsertTimestamp
                targetId="ws-interview"
                value={editor.values.interview}
                currentTime={() => player.ref.current?.currentTime ?? player.time}
                onChange={editor.setInterview}
              />
            ) : null}
          </div>
          <p className="hint" data-testid="ws-keys">
            {t("job.keys")} {t("job.keysTyping")} {t("job.keysMore")} {t("job.keysLines")}
          </p>
        </>
      ) : audio.status === "error" ? (
        <p className="muted">{t("transcription.audioLoadFailed")}</p>
      ) : (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("transcription.audioLoading")}
        </p>
      )}
    </div>
  );
}
