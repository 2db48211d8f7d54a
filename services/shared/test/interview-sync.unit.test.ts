import { describe, expect, it } from "@jest/globals";
import {
  applySync,
  baselineOf,
  planSync,
  relabelSync,
  resolveConflict,
  splitParagraphs,
  splitSegment,
  type TranscriptSegment,
} from "../src/index.ts";

const speakers = [
  { id: 0, name: "Anna" },
  { id: 1, name: "Ben" },
];

const segments: TranscriptSegment[] = [
  { start: 0, end: 4, text: "so how did you start baking bread", speaker: 0 },
  { start: 4, end: 9, text: "i'm a baker since nineteen ninety my father had a shop", speaker: 1 },
  { start: 9, end: 14, text: "we'd get up at three every morning to light the ovens", speaker: 1 },
  { start: 14, end: 18, text: "and what did you take from him", speaker: 0 },
  { start: 18, end: 23, text: "i took the recipes and the patience he didn't write anything down", speaker: 1 },
];

/** What a correction engine would write for a turn: its label and the words, capitalised. */
function write(segs: TranscriptSegment[], names = speakers): string[] {
  const name = names.find((s) => s.id === segs[0].speaker)?.name ?? "Speaker";
  const words = segs.map((s) => s.text).join(" ");
  return [`${name}: ${words[0].toUpperCase()}${words.slice(1)}.`];
}

function interviewOf(segs: TranscriptSegment[]): string {
  const turns: TranscriptSegment[][] = [];
  for (const s of segs) {
    const last = turns.at(-1);
    if (last && last[0].speaker === s.speaker) last.push(s);
    else turns.push([s]);
  }
  return turns.flatMap((t) => write(t)).join("\n\n");
}

/** Plans, writes the changed units the way `write` does, applies. */
function sync(text: string, before: TranscriptSegment[], after: TranscriptSegment[]) {
  const base = baselineOf(before, text, { language: "en", speakers }, 2);
  const plan = planSync(base, after, "en");
  const written = new Map<number, string[]>();
  for (const r of plan.regions) {
    for (let i = r.newFrom; i < r.newTo; i++) {
      const [a, b] = plan.ranges[i];
      written.set(i, write(after.slice(a, b)));
    }
  }
  return { base, plan, ...applySync(base, plan, after, text, written) };
}

describe("interview text follows the transcript", () => {
  const text = interviewOf(segments);

  it("finds which turn owns each paragraph", () => {
    const base = baselineOf(segments, text, { language: "en", speakers }, 2);
    expect(base.units).toHaveLength(4);
    expect(base.units.map((u) => u.speaker)).toEqual([0, 1, 0, 1]);
    expect(base.units.map((u) => u.paragraphs.length)).toEqual([1, 1, 1, 1]);
    expect(base.units[1].paragraphs[0]).toMatch(/^Ben: I'm a baker/);
    expect(base.state).toBe("in-sync");
  });

  it("a word fixed in one segment rewrites that turn only", () => {
    const after = segments.map((s) => ({ ...s }));
    after[2].text = "we'd get up at four every morning to light the ovens";
    const out = sync(text, segments, after);
    expect(out.plan.regions).toHaveLength(1);
    expect(out.updated).toBe(1);
    const before = splitParagraphs(text).items;
    const now = splitParagraphs(out.text).items;
    expect(now).toHaveLength(4);
    expect(now[1]).toContain("at four every morning");
    expect(now[1]).toContain("I'm a baker");
    for (const i of [0, 2, 3]) expect(now[i]).toBe(before[i]);
    expect(out.sync.state).toBe("in-sync");
  });

  it("one line of a run given to the other speaker becomes its own turn", () => {
    const after = segments.map((s) => ({ ...s }));
    after[2].speaker = 0;
    const out = sync(text, segments, after);
    const now = splitParagraphs(out.text).items;
    // The line joins the interviewer's next turn (adjacent lines of one speaker are one turn).
    expect(now.map((p) => p.split(":")[0])).toEqual(["Anna", "Ben", "Anna", "Ben"]);
    expect(now.some((p) => p.startsWith("Anna: We'd get up at three"))).toBe(true);
    expect(now.some((p) => p.startsWith("Ben: I'm a baker since nineteen ninety my father had a shop."))).toBe(true);
  });

  it("a turn the user edited by hand becomes a conflict, and the user picks", () => {
    const edited = text.replace("my father had a shop", "my dad had a small shop");
    const base = baselineOf(segments, text, { language: "en", speakers }, 2);
    const after = segments.map((s) => ({ ...s }));
    after[1].text = "i'm a baker since nineteen eighty my father had a shop";
    const plan = planSync(base, after, "en");
    const written = new Map(
      plan.regions.flatMap((r) =>
        Array.from({ length: r.newTo - r.newFrom }, (_, k): [number, string[]] => {
          const [a, b] = plan.ranges[r.newFrom + k];
          return [r.newFrom + k, write(after.slice(a, b))];
        }),
      ),
    );
    const out = applySync(base, plan, after, edited, written);
    expect(out.text).toBe(edited);
    expect(out.sync.state).toBe("conflicts");
    expect(out.sync.conflicts).toHaveLength(1);
    const [c] = out.sync.conflicts;
    expect(c.interviewText).toContain("my dad had a small shop");
    expect(c.transcriptText).toContain("nineteen eighty");
    expect(c.start).toBe(4);

    const taken = resolveConflict(out.text, out.sync, c.id, "transcript");
    expect(taken.text).toContain("nineteen eighty");
    expect(taken.text).not.toContain("my dad");
    expect(taken.sync.state).toBe("in-sync");
    const kept = resolveConflict(out.text, out.sync, c.id, "interview");
    expect(kept.text).toBe(edited);
    expect(kept.sync.conflicts).toHaveLength(0);
    expect(() => resolveConflict(out.text, out.sync, "nope", "interview")).toThrow(RangeError);
  });

  it("a paragraph the user added stays where it is", () => {
    const withNote = text.replace(
      "\n\nAnna: And what",
      "\n\n[Editor's note: the shop closed in 2001.]\n\nAnna: And what",
    );
    const after = segments.map((s) => ({ ...s }));
    after[4].text = "i took the recipes and the patience he never wrote anything down";
    const out = sync(withNote, segments, after);
    expect(out.text).toContain("[Editor's note: the shop closed in 2001.]");
    expect(out.text).toContain("he never wrote anything down");
  });

  it("renames reach the kept paragraphs", () => {
    const base = baselineOf(segments, text, { language: "en", speakers }, 2);
    const renamed = relabelSync(base, (t) => t.replace(/^Ben:/gm, "Benedict:"));
    expect(renamed.units[1].paragraphs[0]).toMatch(/^Benedict:/);
  });

  it("works in Japanese (no spaces)", () => {
    const ja: TranscriptSegment[] = [
      { start: 0, end: 3, text: "パン作りはいつから始めましたか", speaker: 0 },
      { start: 3, end: 8, text: "父がパン屋をやっていて十歳から手伝っていました", speaker: 1 },
      { start: 8, end: 11, text: "何を学びましたか", speaker: 0 },
      { start: 11, end: 16, text: "忍耐とレシピを学びました", speaker: 1 },
    ];
    const jaSpeakers = [
      { id: 0, name: "山田" },
      { id: 1, name: "佐藤" },
    ];
    const jaText =
      "山田：パン作りはいつから始めましたか。\n\n佐藤：父がパン屋をやっていて十歳から手伝っていました。\n\n山田：何を学びましたか。\n\n佐藤：忍耐とレシピを学びました。";
    const base = baselineOf(ja, jaText, { language: "ja", speakers: jaSpeakers }, 2);
    expect(base.units.map((u) => u.paragraphs.length)).toEqual([1, 1, 1, 1]);
    const after = ja.map((s) => ({ ...s }));
    after[3].text = "忍耐と味を学びました";
    const plan = planSync(base, after, "ja");
    expect(plan.regions).toEqual([{ oldFrom: 3, oldTo: 4, newFrom: 3, newTo: 4 }]);
    const out = applySync(base, plan, after, jaText, new Map([[3, ["佐藤：忍耐と味を学びました。"]]]));
    expect(out.text.endsWith("佐藤：忍耐と味を学びました。")).toBe(true);
    expect(out.text.startsWith("山田：パン作りはいつから始めましたか。\n\n佐藤：父がパン屋")).toBe(true);
  });

  it("without voices told apart, a changed segment rewrites only its paragraph", () => {
    const flat = segments.map(({ speaker: _s, ...s }) => s);
    const flatText = [
      "Interviewer: So how did you start baking bread?",
      "Interviewee: I'm a baker since nineteen ninety my father had a shop. We'd get up at three every morning to light the ovens.",
      "Interviewer: And what did you take from him?",
      "Interviewee: I took the recipes and the patience he didn't write anything down.",
    ].join("\n\n");
    const base = baselineOf(flat, flatText, { language: "en" }, 2);
    const after = flat.map((s) => ({ ...s }));
    after[3].text = "and what did you learn from him";
    const plan = planSync(base, after, "en");
    expect(plan.regions).toHaveLength(1);
    const [r] = plan.regions;
    expect(plan.ranges[r.newFrom]).toEqual([3, 4]);
  });

  it("splits a line at a word, dividing the time", () => {
    const [a, b] = splitSegment(segments[1], 23, 0);
    expect(a.text).toBe("i'm a baker since nineteen");
    expect(b.text).toBe("ninety my father had a shop");
    expect(a.end).toBe(b.start);
    expect(a.end).toBeGreaterThan(4);
    expect(b.end).toBe(9);
    expect(b.speaker).toBe(0);
    expect(a.speaker).toBe(1);
    expect(() => splitSegment(segments[1], 0, undefined)).toThrow(RangeError);
    const timed = {
      start: 0,
      end: 2,
      text: "yes indeed",
      words: [
        { start: 0.1, end: 0.5, text: "yes" },
        { start: 1.2, end: 1.8, text: "indeed" },
      ],
    };
    const [x, y] = splitSegment(timed, 4, undefined);
    expect(x.end).toBe(1.2);
    expect(y.words).toEqual([{ start: 1.2, end: 1.8, text: "indeed" }]);
  });
});
