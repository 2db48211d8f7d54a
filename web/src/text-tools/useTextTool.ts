import type { TextRuleViolation } from "@kikitori/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../api/errors.ts";
import { refetchAfterWrite } from "../api/refetch.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import { useLoginPrompt } from "../auth/useLoginPrompt.ts";
import { errorText } from "../i18n/errorText.ts";
import { copyToClipboard } from "../lib/clipboard.ts";
import { useLang } from "../routing/useLang.ts";

export type CopyState = "idle" | "copied" | "failed";

/**
 * What the summary and title screens share around one generation: the login prompt, the client-side
 * check (shown like the server's error), one request at a time, cancellation on unmount, the usage
 * refresh after a success, the error alert and the copy notice.
 */
export function useTextTool(failureKey: string, logLabel: string) {
  const { t } = useTranslation();
  const lang = useLang();
  const promptLogin = useLoginPrompt();
  const queryClient = useQueryClient();
  const { user } = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; cause?: unknown } | null>(null);
  const [copied, setCopied] = useState<CopyState>("idle");
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  async function run<R>(steps: {
    validate: () => TextRuleViolation | null;
    request: (uid: string, signal: AbortSignal) => Promise<R>;
    onStart?: () => void;
    onSuccess: (result: R) => void;
    onFailure?: () => void;
  }): Promise<void> {
    if (busy) return;
    if (!user) return promptLogin();
    const violation = steps.validate();
    if (violation) {
      const cause = new ApiError(violation.code, 400, violation.message);
      setError({ message: errorText(t, cause, failureKey), cause });
      return;
    }
    setError(null);
    setCopied("idle");
    steps.onStart?.();
    setBusy(true);
    const ctrl = new AbortController();
    abort.current = ctrl;
    try {
      const result = await steps.request(user.uid, ctrl.signal);
      if (ctrl.signal.aborted) return;
      steps.onSuccess(result);
      void refetchAfterWrite(queryClient, ["usage"]);
    } catch (err) {
      if (ctrl.signal.aborted) return;
      console.warn(logLabel, err);
      steps.onFailure?.();
      setError({ message: errorText(t, err, failureKey), cause: err });
    } finally {
      if (!ctrl.signal.aborted) setBusy(false);
    }
  }

  const copy = async (text: string) => setCopied((await copyToClipboard(text)) ? "copied" : "failed");

  return { busy, error, copied, run, copy, lang };
}
