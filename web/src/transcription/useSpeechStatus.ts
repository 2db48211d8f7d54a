import { SPEECH_STATUS_UNKNOWN, type SpeechStatus } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { getSpeechStatus } from "./api.ts";

export const SPEECH_QUERY_KEY = ["speech"] as const;

/** How long the speech status is trusted before it is read again. */
export const SPEECH_STATUS_STALE_MS = 60_000;

/**
 * What the speech engine can do (GET /api/speech). Until it is known, or when it cannot be read,
 * nothing is assumed: every language is offered and no notice is shown (the upload check still applies).
 */
export function useSpeechStatus(): SpeechStatus {
  const query = useQuery({
    queryKey: SPEECH_QUERY_KEY,
    queryFn: ({ signal }) => getSpeechStatus(signal),
    staleTime: SPEECH_STATUS_STALE_MS,
    retry: 1,
  });
  return query.data ?? SPEECH_STATUS_UNKNOWN;
}
