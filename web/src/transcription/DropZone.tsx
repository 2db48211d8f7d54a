import { MAX_UPLOAD_BYTES } from "@kikitori/shared";
import { type ChangeEvent, type DragEvent, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useAuth } from "../auth/AuthProvider.tsx";
import { useUsage } from "../plan/useUsage.ts";
import { useLang } from "../routing/useLang.ts";
import { AUDIO_ACCEPT, checkFile, formatFileSize } from "./form.ts";

/**
 * The audio file field: a drop zone that is also the file picker. A refused file (too large, not audio)
 * is not taken, and its error shows here, where the file was dropped. `onChoose` gets every file the
 * user picks (null for a refused one).
 */
export function DropZone({
  file,
  processing,
  onChoose,
}: {
  file: File | null;
  processing: boolean;
  onChoose: (file: File | null) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const [fileError, setFileError] = useState<string | null>(null);
  // The plan's upload limit (20 MiB until it is known, and on the free plan: the spec's texts then).
  const { user } = useAuth();
  const maxBytes = useUsage(user?.uid).data?.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  const planLimit = maxBytes > MAX_UPLOAD_BYTES;
  const size = formatFileSize(maxBytes, lang);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  // A file dropped next to the drop zone must not make the browser open it (and lose the screen).
  useEffect(() => {
    const guard = (e: globalThis.DragEvent) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    };
    window.addEventListener("dragover", guard);
    window.addEventListener("drop", guard);
    return () => {
      window.removeEventListener("dragover", guard);
      window.removeEventListener("drop", guard);
    };
  }, []);

  const acceptFile = (picked: File | null | undefined) => {
    if (processing || !picked) return;
    const problem = checkFile(picked, maxBytes);
    if (problem) {
      onChoose(null);
      if (fileInput.current) fileInput.current.value = "";
      const tooLarge = planLimit ? "transcription.upload.tooLarge" : "messages.fileTooLarge";
      setFileError(problem === "tooLarge" ? tooLarge : "errors.UNSUPPORTED_AUDIO");
      return;
    }
    setFileError(null);
    onChoose(picked);
  };

  const onFileChange = (e: ChangeEvent<HTMLInputElement>) => acceptFile(e.target.files?.[0]);

  const onDragOver = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = processing ? "none" : "copy";
    if (!processing) setDragging(true);
  };
  const onDragLeave = (e: DragEvent) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    acceptFile(e.dataTransfer.files?.[0]);
  };

  return (
    <div className="field">
      <span className="field-label" id="tx-file-label">
        {t("transcription.fileLabel")}
      </span>
      <label
        className={`tx-dropzone${dragging ? " dragging" : ""}${processing ? " disabled" : ""}${file ? " has-file" : ""}${fileError ? " invalid" : ""}`}
        data-testid="tx-dropzone"
        onDragOver={onDragOver}
        onDragEnter={onDragOver}
        onDragLeave={onDragLeave}
        onDrop={onDrop}
      >
        <input
          ref={fileInput}
          className="visually-hidden"
          type="file"
          accept={AUDIO_ACCEPT}
          data-testid="tx-file-input"
          aria-labelledby="tx-file-label"
          aria-describedby={fileError ? "tx-file-error tx-file-hint" : "tx-file-hint"}
          aria-invalid={fileError ? true : undefined}
          onChange={onFileChange}
          disabled={processing}
        />
        <UploadIcon />
        {file ? (
          <span className="tx-file">
            <span className="tx-file-name" data-testid="tx-file-name">
              {file.name}
            </span>
            <span className="tx-file-size muted" data-testid="tx-file-size">
              {formatFileSize(file.size, lang)}
            </span>
            <span className="tx-file-change">{t("transcription.changeFile")}</span>
          </span>
        ) : (
          <span className="tx-dropzone-text">
            <strong>{t("transcription.dropzoneTitle")}</strong>
          </span>
        )}
        <span className="hint" id="tx-file-hint">
          {planLimit ? t("transcription.upload.hint", { size }) : t("transcription.dropzoneHint")}
        </span>
      </label>
      {fileError ? (
        <p className="field-error" id="tx-file-error" role="alert" data-testid="tx-file-error">
          {t(fileError, { size })}
        </p>
      ) : null}
    </div>
  );
}

function UploadIcon() {
  return (
    <svg className="tx-upload-icon" width="32" height="32" viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <path
        d="M12 16V4m0 0 4.5 4.5M12 4 7.5 8.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
