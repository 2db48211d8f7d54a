import { type Section, splitIntoSections } from "../src/correction/sections.ts";
import { fixture } from "./fixtures/correction-transcripts.ts";

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "so um how did you get started well i i think the the bakery was my grandmother's idea and we".split(" ");

function randomText(seed: number, kind: "words" | "punctuated" | "cjk" | "mixed"): string {
  const r = rng(seed);
  const n = 50 + Math.floor(r() * 1500);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    if (kind === "cjk")
      parts.push(
        "本日はよろしくお願いします最初に作家になったきっかけを"[Math.floor(r() * 26)] + (r() < 0.05 ? "。" : ""),
      );
    else if (kind === "mixed")
      parts.push(r() < 0.1 ? "😀" : r() < 0.05 ? "\n\n" : WORDS[Math.floor(r() * WORDS.length)] + " ");
    else parts.push(WORDS[Math.floor(r() * WORDS.length)] + (kind === "punctuated" && r() < 0.1 ? ". " : " "));
  }
  return parts.join("");
}

/** Every invariant of a sectioning; returns the first violation (plain checks: thousands of sections). */
function violation(text: string, sections: Section[], maxChars: number, overlap = 0): string | null {
  if (text.length === 0) return sections.length === 0 ? null : "sections for an empty text";
  if (sections[0].start !== 0) return "first section does not start at 0";
  if (sections.at(-1)!.end !== text.length) return "last section does not end at the end";
  if (sections.map((s) => s.text).join("") !== text) return "concatenation differs from the text";
  for (const [i, s] of sections.entries()) {
    if (s.index !== i) return `index ${s.index} at ${i}`;
    if (s.text !== text.slice(s.start, s.end)) return `section ${i}: text is not its source range`;
    if (s.end <= s.start) return `section ${i} is empty`;
    if (s.end - s.start > maxChars) return `section ${i} is longer than ${maxChars}`;
    if (i > 0 && s.start !== sections[i - 1].end) return `gap or overlap before section ${i}`;
    if (s.context !== text.slice(s.contextStart, s.start)) return `section ${i}: context is not its range`;
    if (s.context.length > overlap) return `section ${i}: context longer than ${overlap}`;
    if (i === 0 && s.context !== "") return "first section has context";
    if (i > 0 && s.contextStart < sections[i - 1].start)
      return `section ${i}: context reaches past the previous section`;
    const code = text.charCodeAt(s.start);
    if (s.start > 0 && code >= 0xdc00 && code <= 0xdfff) return `section ${i} starts inside a surrogate pair`;
  }
  return null;
}

function checkInvariants(text: string, sections: Section[], maxChars: number, overlap = 0): void {
  expect(violation(text, sections, maxChars, overlap)).toBeNull();
}

describe("splitIntoSections", () => {
  it("returns nothing for an empty transcript and one section for a short one", () => {
    expect(splitIntoSections("", { maxChars: 100 })).toEqual([]);
    const one = splitIntoSections("hello there", { maxChars: 100, overlapChars: 30 });
    expect(one).toEqual([{ index: 0, start: 0, end: 11, text: "hello there", contextStart: 0, context: "" }]);
  });

  it.each([
    ["words", 1],
    ["words", 2],
    ["punctuated", 3],
    ["punctuated", 4],
    ["cjk", 5],
    ["cjk", 6],
    ["mixed", 7],
    ["mixed", 8],
  ] as const)("tiles a %s text exactly, nothing lost or repeated (seed %i)", (kind, seed) => {
    const text = randomText(seed, kind);
    for (const maxChars of [2, 7, 64, 300, 1000]) {
      for (const overlap of [0, 25, 300]) {
        checkInvariants(text, splitIntoSections(text, { maxChars, overlapChars: overlap }), maxChars, overlap);
      }
    }
  });

  it("tiles the fixtures at the default size and at small sizes", () => {
    const all = ["interview", "voicemail", "phonecall", "whisper", "japanese", "german"] as const;
    for (const name of all) {
      const text = fixture(name);
      for (const maxChars of [50, 200, 6000])
        checkInvariants(text, splitIntoSections(text, { maxChars, overlapChars: 40 }), maxChars, 40);
    }
  });

  it("breaks at sentence ends when there are some, and at spaces otherwise", () => {
    const text = "One two three. Four five six seven. Eight nine ten eleven twelve.";
    const sections = splitIntoSections(text, { maxChars: 40 });
    expect(sections.map((s) => s.text)).toEqual([
      "One two three. Four five six seven. ",
      "Eight nine ten eleven twelve.",
    ]);
    const words = splitIntoSections("alpha beta gamma delta epsilon zeta eta theta", { maxChars: 20 });
    for (const s of words.slice(0, -1)) expect(s.text.endsWith(" ")).toBe(true);
    expect(words.map((s) => s.text.trim().split(" ").length).reduce((a, b) => a + b)).toBe(8);
  });

  it("breaks Japanese after 。 and never splits a word of a spaced language", () => {
    const ja =
      "本日はよろしくお願いします。最初に作家になったきっかけを教えていただけますか。子供の頃から本が好きでした。";
    const sections = splitIntoSections(ja, { maxChars: 30 });
    for (const s of sections.slice(0, -1)) expect(s.text.endsWith("。")).toBe(true);
    const en = fixture("interview");
    for (const s of splitIntoSections(en, { maxChars: 300 }).slice(1)) expect(en[s.start - 1]).toMatch(/\s/);
  });

  it("gives each section after the first up to overlapChars of the previous text as context, from a word start", () => {
    const text = fixture("interview");
    const sections = splitIntoSections(text, { maxChars: 400, overlapChars: 100 });
    expect(sections.length).toBeGreaterThan(2);
    for (const s of sections.slice(1)) {
      expect(s.context.length).toBeGreaterThan(50);
      expect(text[s.contextStart - 1]).toMatch(/\s/);
      expect(text.slice(0, s.start).endsWith(s.context)).toBe(true);
    }
  });

  it("prefers the given break points (sentence starts) when they are word starts", () => {
    const text = "aaa bbb ccc ddd eee fff ggg hhh iii jjj";
    // "eee" starts at 16; a hint inside a word (17) is ignored.
    expect(splitIntoSections(text, { maxChars: 30, breakPoints: [16] })[0].end).toBe(16);
    expect(splitIntoSections(text, { maxChars: 30, breakPoints: [17] })[0].end).not.toBe(17);
    checkInvariants(text, splitIntoSections(text, { maxChars: 12, breakPoints: [4, 8, 12, 16, 20] }), 12);
  });
});
