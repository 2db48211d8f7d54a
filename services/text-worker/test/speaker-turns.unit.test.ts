import { applySpeakerRename, relabelText, turnsFromSegments } from "@kikitori/shared";
import { memoryStepStore } from "@kikitori/shared/server";
import { OfflineCorrectionEngine } from "../src/correction/offline.ts";
import type { CorrectionInput } from "../src/correction/port.ts";
import { asks, correctionTurns, decideSpeakers, labelledTranscript } from "../src/correction/speaker-turns.ts";

const names = { interviewer: "Anna", interviewee: "Ben", other: (n: number) => `Speaker ${n}` };

describe("heard turns", () => {
  const segments = [
    { start: 0, end: 2, text: "So how did it start?", speaker: 0 },
    { start: 2.5, end: 6, text: "It started in a garage.", speaker: 1 },
    { start: 6, end: 8, text: "With two friends.", speaker: 1 },
    { start: 8.5, end: 9.5, text: "Really?", speaker: 0 },
    { start: 10, end: 12, text: "Yes.", speaker: 1 },
  ];

  it("groups consecutive segments of one speaker into a turn", () => {
    expect(turnsFromSegments(segments, false).map((t) => [t.speaker, t.text])).toEqual([
      [0, "So how did it start?"],
      [1, "It started in a garage. With two friends."],
      [0, "Really?"],
      [1, "Yes."],
    ]);
    expect(
      turnsFromSegments(
        [
          { start: 0, end: 1, text: "はい", speaker: 0 },
          { start: 1, end: 2, text: "そうです", speaker: 0 },
        ],
        true,
      )[0].text,
    ).toBe("はいそうです");
  });

  it("takes the speaker who asks most for the interviewer, even when the other speaks first", () => {
    const turns = turnsFromSegments(
      [
        { start: 0, end: 1, text: "Hello everyone.", speaker: 0 },
        ...segments.map((s) => ({ ...s, start: s.start + 1, end: s.end + 1, speaker: 1 - s.speaker })),
      ],
      false,
    );
    const speakers = decideSpeakers(turns, names);
    expect(speakers).toEqual([
      { id: 0, name: "Ben", role: "interviewee" },
      { id: 1, name: "Anna", role: "interviewer" },
    ]);
  });

  it("takes the first speaker when nobody asks, names a third one 'Speaker 3', and one voice is the interviewee", () => {
    const turns = [
      { speaker: 0, start: 0, end: 1, text: "we begin" },
      { speaker: 1, start: 1, end: 9, text: "i started the firm" },
      { speaker: 2, start: 9, end: 10, text: "coffee is here" },
    ];
    expect(decideSpeakers(turns, names).map((s) => [s.name, s.role])).toEqual([
      ["Anna", "interviewer"],
      ["Ben", "interviewee"],
      ["Speaker 3", "other"],
    ]);
    expect(decideSpeakers([turns[1]], names)).toEqual([{ id: 1, name: "Ben", role: "interviewee" }]);
  });

  it("knows a question by its mark, and unpunctuated English by its first words", () => {
    expect(asks("Is that so?")).toBe(true);
    expect(asks("そうですか？")).toBe(true);
    expect(asks("how did you start the company")).toBe(true);
    expect(asks("we started in a garage")).toBe(false);
    expect(asks("How nice. We started.")).toBe(false);
  });

  it("gives the language model each turn under its label", () => {
    const turns = correctionTurns(
      turnsFromSegments(segments, false),
      decideSpeakers(turnsFromSegments(segments, false), names),
    );
    const format = {
      interviewerLabel: "Anna:",
      intervieweeLabel: "Ben:",
      gap: " ",
      separator: "\n\n" as const,
      template: "{L}:",
    };
    expect(labelledTranscript(turns, format).split("\n\n")).toEqual([
      "Anna: So how did it start?",
      "Ben: It started in a garage. With two friends.",
      "Anna: Really?",
      "Ben: Yes.",
    ]);
  });
});

describe("the offline engine with heard turns", () => {
  const input = (turns: CorrectionInput["turns"]): CorrectionInput => ({
    transcript: (turns ?? []).map((t) => t.text).join(" "),
    language: "en",
    interviewer: "Anna",
    interviewee: "Ben",
    tone: null,
    interviewExample: "",
    fileType: "meeting",
    turns,
  });
  const turn = (speaker: number, text: string, role: "interviewer" | "interviewee" | null, name: string) => ({
    speaker,
    role,
    name,
    start: 0,
    end: 1,
    text,
  });

  it("keeps every heard turn with its speaker, even answers that sound like questions", async () => {
    const r = await new OfflineCorrectionEngine().correct(
      input([
        turn(0, "um so what did you do next", "interviewer", "Anna"),
        turn(1, "what did i do well i uh i moved to osaka", "interviewee", "Ben"),
        turn(0, "and then", "interviewer", "Anna"),
        turn(1, "then i opened the shop do you know it", "interviewee", "Ben"),
        turn(2, "sorry to interrupt the coffee is here", null, "Speaker 3"),
      ]),
    );
    expect(r.text.split("\n\n")).toEqual([
      "Anna: So what did you do next?",
      "Ben: What did I do? Well, I moved to osaka.",
      "Anna: And then.",
      "Ben: Then I opened the shop. Do you know it?",
      "Speaker 3: Sorry to interrupt the coffee is here.",
    ]);
  });

  it("resumes finished sections and reports each new one", async () => {
    const engine = new OfflineCorrectionEngine({ sectionChars: 200 });
    const turns = Array.from({ length: 12 }, (_, i) =>
      turn(
        i % 2,
        `this is turn number ${i} of the interview and it is long enough`,
        i % 2 ? "interviewee" : "interviewer",
        i % 2 ? "Ben" : "Anna",
      ),
    );
    const seen: number[] = [];
    const first = await engine.correct(input(turns), { onSection: (i) => void seen.push(i) });
    expect(seen.length).toBe(first.sections.length);
    expect(first.sections.length).toBeGreaterThan(1);
    const again: number[] = [];
    const resumed = await engine.correct(input(turns), {
      steps: memoryStepStore(new Map([[0, first.sections[0]]])),
      onSection: (i) => void again.push(i),
    });
    expect(again).not.toContain(0);
    expect(resumed.text).toBe(first.text);
  });
});

describe("renaming speakers", () => {
  const speakers = [
    { id: 0, name: "Interviewer", role: "interviewer" as const },
    { id: 1, name: "Interviewee", role: "interviewee" as const },
    { id: 2, name: "Speaker 3", role: "other" as const },
  ];
  const text =
    "Interviewer: How was Interviewer training?\n\nInterviewee: Fine.\n\n**Speaker 3:** Coffee.\n\nInterviewee: Thanks.";

  it("renames a label at turn starts only, never inside the words", () => {
    const { speakers: next, renames } = applySpeakerRename(speakers, {
      names: [{ id: 1, name: "Dr. Tanaka" }],
      swapRoles: false,
    });
    expect(next[1]).toEqual({ id: 1, name: "Dr. Tanaka", role: "interviewee" });
    expect(relabelText(text, renames)).toBe(
      "Interviewer: How was Interviewer training?\n\nDr. Tanaka: Fine.\n\n**Speaker 3:** Coffee.\n\nDr. Tanaka: Thanks.",
    );
    expect(
      relabelText(text, applySpeakerRename(speakers, { names: [{ id: 2, name: "Kim" }], swapRoles: false }).renames),
    ).toContain("**Kim:** Coffee.");
  });

  it("swaps interviewer and interviewee: parts, names and labels at once", () => {
    const { speakers: next, renames } = applySpeakerRename(speakers, { names: [], swapRoles: true });
    expect(next.slice(0, 2)).toEqual([
      { id: 0, name: "Interviewee", role: "interviewee" },
      { id: 1, name: "Interviewer", role: "interviewer" },
    ]);
    expect(relabelText(text, renames)).toBe(
      "Interviewee: How was Interviewer training?\n\nInterviewer: Fine.\n\n**Speaker 3:** Coffee.\n\nInterviewer: Thanks.",
    );
  });

  it("refuses an unknown speaker", () => {
    expect(() => applySpeakerRename(speakers, { names: [{ id: 9, name: "X" }], swapRoles: false })).toThrow(
      /no speaker 9/,
    );
  });

  it("works with full-width colons and names that are prefixes of others", () => {
    const ja = "インタビュアー：はい。\nインタビュアー2：いいえ。";
    expect(relabelText(ja, [["インタビュアー", "田中"]])).toBe("田中：はい。\nインタビュアー2：いいえ。");
  });
});
