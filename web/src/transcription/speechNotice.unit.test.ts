import { expect, it } from "@jest/globals";
import { AUDIO_LANGUAGE_CODES, type SpeechRoute, type SpeechStatus } from "@kikitori/shared";
import { routedAroundLanguage } from "./speechNotice.ts";

const AROUND = { engine: "parakeet" as const, model: "parakeet-tdt-0.6b-v3-int8", reason: "bad encoder" };
const PARAKEET = new Set(["en", "de", "fr"]);

/** Parakeet failed to load: its languages go to Whisper; the rest are on their usual engines. */
function status(code: "SPEECH_ROUTED_AROUND" | "SPEECH_FALLBACK_ROUGH" | null): SpeechStatus {
  const routes: SpeechRoute[] = AUDIO_LANGUAGE_CODES.map((language) => ({
    language,
    engine: language === "ja" ? "sensevoice" : "whisper",
    model: language === "ja" ? "sense-voice-small-int8" : "base",
    present: true,
    pull: null,
    ...(PARAKEET.has(language) ? { routedAround: AROUND } : {}),
  }));
  return {
    available: true,
    engine: "auto",
    model: "whisper:base",
    languages: "all",
    notice: code ? { code, setting: "PARAKEET_MODEL_DIR", reason: "bad encoder" } : null,
    routes,
  };
}

it("names the chosen audio language when it is routed around, with the engine it goes to", () => {
  expect(routedAroundLanguage(status("SPEECH_ROUTED_AROUND"), "de", "ja")).toEqual({
    language: "de",
    engine: "whisper",
  });
});

it("with 'auto' or no choice, speaks of the interface language", () => {
  expect(routedAroundLanguage(status("SPEECH_ROUTED_AROUND"), "auto", "fr")).toEqual({
    language: "fr",
    engine: "whisper",
  });
  expect(routedAroundLanguage(status("SPEECH_ROUTED_AROUND"), null, "en-US")?.language).toBe("en");
});

it("says nothing for a language that is not routed around, or without the notice", () => {
  expect(routedAroundLanguage(status("SPEECH_ROUTED_AROUND"), "ja", "en")).toBeNull();
  expect(routedAroundLanguage(status("SPEECH_ROUTED_AROUND"), "auto", "ja")).toBeNull();
  expect(routedAroundLanguage(status(null), "de", "en")).toBeNull();
  // The rough fallback's notice is the one shown then.
  expect(routedAroundLanguage(status("SPEECH_FALLBACK_ROUGH"), "de", "en")).toBeNull();
});

it("says nothing for a language no engine takes (the form refuses it already)", () => {
  const s = status("SPEECH_ROUTED_AROUND");
  s.routes = s.routes?.map((r) => (r.language === "de" ? { ...r, engine: null, model: null, present: false } : r));
  expect(routedAroundLanguage(s, "de", "en")).toBeNull();
});
