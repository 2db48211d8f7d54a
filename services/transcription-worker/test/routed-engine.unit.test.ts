import type { SpeechEngineName } from "@kikitori/shared";
import type { EngineResult, TranscribeOptions, TranscriptionEngine } from "../src/engines/port.ts";
import { RoutedEngine } from "../src/engines/routed.ts";
import type { RoutableKind, RouteCandidate } from "../src/engines/routes.ts";

/** An engine that records what it was asked and answers its own name as the text. */
class Recording implements TranscriptionEngine {
  readonly calls: TranscribeOptions[] = [];
  closed = false;
  constructor(
    readonly kind: SpeechEngineName,
    readonly languages: "all" | readonly string[],
    private readonly heard: string | null = null,
  ) {}
  get name() {
    return `${this.kind}:m`;
  }
  async check() {}
  async transcribe(_wav: string, opts: TranscribeOptions): Promise<EngineResult> {
    this.calls.push(opts);
    return { segments: [{ start: 0, end: 1, text: this.kind }], language: this.heard ?? opts.language };
  }
  async close() {
    this.closed = true;
  }
}

class Detecting extends Recording {
  async detectLanguage() {
    return "fr";
  }
}

function routed(engines: Partial<Record<RoutableKind, Recording>>) {
  return new RoutedEngine(new Map(Object.entries(engines) as Array<[RoutableKind, Recording]>));
}

it("sends each chunk to the best engine for its language", async () => {
  const parakeet = new Recording("parakeet", ["en", "de", "fr"]);
  const sensevoice = new Recording("sensevoice", ["zh", "en", "ja", "ko", "yue"]);
  const whisper = new Detecting("whisper", "all");
  const e = routed({ parakeet, sensevoice, whisper });
  const text = async (language: string) =>
    (await e.transcribe("x.wav", { language, fileType: "meeting" })).segments[0].text;
  expect(await text("en")).toBe("parakeet");
  expect(await text("de")).toBe("parakeet");
  expect(await text("ja")).toBe("sensevoice");
  expect(await text("yue")).toBe("sensevoice");
  expect(await text("ar")).toBe("whisper");
  expect(await text("auto")).toBe("whisper");
  expect(e.languages).toBe("all");
  expect(e.name).toBe("auto:parakeet+sensevoice+whisper");
});

it("detects the language with Whisper, else with SenseVoice's language id", async () => {
  expect(await routed({ whisper: new Detecting("whisper", "all") }).detectLanguage("x.wav")).toBe("fr");
  const sv = new Recording("sensevoice", ["zh", "en", "ja", "ko", "yue"], "ko");
  expect(await routed({ sensevoice: sv }).detectLanguage("x.wav")).toBe("ko");
  expect(sv.calls[0].language).toBe("auto");
  expect(await routed({ parakeet: new Recording("parakeet", ["en"]) }).detectLanguage("x.wav")).toBeNull();
});

it("without Whisper: the languages are those of the engines there; others are refused", async () => {
  const e = routed({
    parakeet: new Recording("parakeet", ["en", "de"]),
    sensevoice: new Recording("sensevoice", ["ja"]),
  });
  expect(e.languages).toEqual(["en", "de", "ja"]);
  await expect(e.transcribe("x.wav", { language: "ar", fileType: "meeting" })).rejects.toThrow(/audio language "ar"/);
});

it("closes every engine", async () => {
  const a = new Recording("parakeet", ["en"]);
  const b = new Detecting("whisper", "all");
  await routed({ parakeet: a, whisper: b }).close();
  expect(a.closed && b.closed).toBe(true);
});

it("says which languages went to a lower engine because the better one's model failed to load", () => {
  const broken: RouteCandidate = {
    kind: "parakeet",
    languages: ["en", "de"],
    model: "parakeet-tdt-0.6b-v3-int8",
    usable: false,
    pull: null,
    failure: "the parakeet model could not be loaded: bad encoder",
  };
  const missing: RouteCandidate = { ...broken, kind: "sensevoice", languages: ["ja", "en"], failure: null };
  const engines = new Map<RoutableKind, Recording>([
    ["whisper", new Recording("whisper", "all")],
    ["pocketsphinx", new Recording("pocketsphinx", ["en"])],
  ]);
  const e = new RoutedEngine(engines, [broken, missing]);
  expect(e.engineFor("en")?.kind).toBe("whisper");
  expect(e.routedAround("en")).toBe(true);
  expect(e.routedAround("de")).toBe(true);
  // SenseVoice was never pulled: Japanese on Whisper is its plain route.
  expect(e.routedAround("ja")).toBe(false);
  expect(e.routedAround("ar")).toBe(false);
  expect(e.routedAround("auto")).toBe(false);
  // Nothing failed: nothing is routed around.
  expect(routed({ whisper: new Recording("whisper", "all") }).routedAround("en")).toBe(false);
});
