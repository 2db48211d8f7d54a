import type { JobSpeaker, TranscriptionSnapshot } from "@kikitori/shared";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { renameSpeakers } from "../transcription/api.ts";

/**
 * Who said what, after the fact: each speaker heard in the recording with its part and name; names
 * can be changed ("Speaker 2" → "Dr. Tanaka") and the interviewer and interviewee swapped. The
 * interview text follows (its labels are rewritten by the server).
 */
export function SpeakersPanel({
  jobId,
  speakers,
  onRenamed,
}: {
  jobId: string;
  speakers: JobSpeaker[];
  onRenamed: (snapshot: TranscriptionSnapshot) => void;
}) {
  const { t } = useTranslation();
  const [names, setNames] = useState<Record<number, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    setNames(Object.fromEntries(speakers.map((s) => [s.id, s.name])));
  }, [speakers]);

  const send = async (body: Parameters<typeof renameSpeakers>[1]) => {
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      onRenamed(await renameSpeakers(jobId, body));
      setSaved(true);
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setBusy(false);
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const changed = speakers
      .map((s) => ({ id: s.id, name: (names[s.id] ?? "").trim() }))
      .filter((s, i) => s.name && s.name !== speakers[i].name);
    if (changed.length) void send({ names: changed, swapRoles: false });
  };

  const hasPair = speakers.some((s) => s.role === "interviewer") && speakers.some((s) => s.role === "interviewee");
  return (
    <form className="tx-speakers" data-testid="tx-speakers-panel" onSubmit={onSubmit}>
      <h3>{t("transcription.speakersTitle")}</h3>
      <ul className="tx-speaker-list">
        {speakers.map((s) => (
          <li key={s.id} className="field tx-speaker" data-testid={`tx-speaker-${s.id}`} data-role={s.role}>
            <label htmlFor={`tx-speaker-name-${s.id}`}>{t(`transcription.speakerRole.${s.role}`)}</label>
            <input
              id={`tx-speaker-name-${s.id}`}
              data-testid={`tx-speaker-name-${s.id}`}
              value={names[s.id] ?? ""}
              maxLength={100}
              onChange={(e) => setNames((n) => ({ ...n, [s.id]: e.target.value }))}
              disabled={busy}
              dir="auto"
            />
          </li>
        ))}
      </ul>
      <div className="tx-speaker-actions">
        <button type="submit" className="btn btn-secondary" data-testid="tx-speakers-save" disabled={busy}>
          {t("transcription.speakersRename")}
        </button>
        {hasPair ? (
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="tx-speakers-swap"
            disabled={busy}
            onClick={() => void send({ names: [], swapRoles: true })}
          >
            {t("transcription.speakersSwap")}
          </button>
        ) : null}
      </div>
      <p className="hint" role="status" data-testid="tx-speakers-status">
        {error ?? (saved ? t("transcription.speakersSaved") : t("transcription.speakersHint"))}
      </p>
    </form>
  );
}
