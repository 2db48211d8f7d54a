/**
 * Which language the "routed around" speech notice speaks of: a better speech model for it is present
 * on the server but failed to load, so its recordings go to a less accurate engine. Pure.
 */
import { AUTO_LANGUAGE, type SpeechEngineName, type SpeechStatus } from "@kikitori/shared";

/** An engine a language is routed to (never `auto`, which routes). */
type RoutedTo = Exclude<SpeechEngineName, "auto">;

/** Engines by their product names (names, not settings: shown as they are in every language). */
export const ENGINE_LABELS: Readonly<Record<RoutedTo, string>> = {
  whisper: "Whisper",
  pocketsphinx: "PocketSphinx",
  openai: "OpenAI",
  parakeet: "Parakeet",
  sensevoice: "SenseVoice",
};

/**
 * The language the user is about to transcribe in (the audio language chosen, else, with "auto" or
 * none, the interface language) when it is routed around, with the engine it goes to instead; null
 * when the status has no such notice, or that language is not routed around, or no engine takes it
 * (the upload form refuses it already).
 */
export function routedAroundLanguage(
  status: SpeechStatus,
  audioLanguage: string | null | undefined,
  uiLang: string,
): { language: string; engine: RoutedTo } | null {
  if (status.notice?.code !== "SPEECH_ROUTED_AROUND") return null;
  const language =
    audioLanguage && audioLanguage !== AUTO_LANGUAGE ? audioLanguage : uiLang.split(/[-_]/)[0].toLowerCase();
  const route = status.routes?.find((r) => r.language === language);
  if (!route?.routedAround || !route.engine || route.engine === "auto") return null;
  return { language, engine: route.engine };
}
