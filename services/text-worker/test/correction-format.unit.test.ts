import { defaultFormat, detectFormat, type FormatContext, parseLabelledText } from "../src/correction/format.ts";
import { detectTextLang } from "../src/correction/rules.ts";
import { applyTone, contract, expandContractions } from "../src/correction/tone.ts";
import { fixture } from "./fixtures/correction-transcripts.ts";

const ctx = (over: Partial<FormatContext> = {}): FormatContext => ({
  interviewer: "Sarah",
  interviewee: "David",
  defaults: { interviewer: "Interviewer", interviewee: "Interviewee" },
  spaceless: false,
  ...over,
});

describe("detectFormat", () => {
  it("defaults to 'Name: text' with blank lines, full-width colon for Japanese/Chinese", () => {
    expect(detectFormat("", ctx())).toEqual({
      interviewerLabel: "Sarah:",
      intervieweeLabel: "David:",
      gap: " ",
      separator: "\n\n",
      template: "{L}:",
    });
    expect(defaultFormat(ctx({ interviewer: "", interviewee: "", spaceless: true }))).toMatchObject({
      interviewerLabel: "Interviewer：",
      intervieweeLabel: "Interviewee：",
      gap: "",
    });
  });

  it.each([
    ["Q: Where were you born?\nA: In Osaka.", "Q:", "A:", "\n"],
    ["Q. Where?\n\nA. Osaka.", "Q.", "A.", "\n\n"],
    ["Question: Where?\nAnswer: Osaka.", "Question:", "Answer:", "\n"],
    ["質問：出身はどこですか？\n回答：大阪です。", "質問：", "回答：", "\n"],
    ["Q: Only a question?", "Q:", "A:", "\n\n"],
    ["**Host**: Hi.\n\n**Guest**: Hello.", "**Sarah**:", "**David**:", "\n\n"],
    ["**Q:** Where?\n**A:** Osaka.", "**Q:**", "**A:**", "\n"],
    ["Tom: I answer.\nJane: Do you?", "Sarah:", "David:", "\n"],
    ["Jane — Where?\nTom — Osaka.", "Sarah —", "David —", "\n"],
    ["— Where?\n— Osaka.", "—", "—", "\n"],
    ["- Where?\n- Osaka.", "-", "-", "\n"],
    ["Interviewer (Jane): Where?\nInterviewee (Tom): Osaka.", "Interviewer (Sarah):", "Interviewee (David):", "\n"],
    ["Just write it nicely please", "Sarah:", "David:", "\n\n"],
  ])("%j", (example, ivr, ive, separator) => {
    const f = detectFormat(example, ctx());
    expect([f.interviewerLabel, f.intervieweeLabel, f.separator]).toEqual([ivr, ive, separator]);
  });

  it("keeps the example's role words when no names are given", () => {
    const f = detectFormat("Host: Hi.\nGuest: Hello.", ctx({ interviewer: "", interviewee: "" }));
    expect([f.interviewerLabel, f.intervieweeLabel]).toEqual(["Host:", "Guest:"]);
    const p = detectFormat(
      "Interviewer (Jane): Hi.\nInterviewee (Tom): Hello.",
      ctx({ interviewer: "", interviewee: "" }),
    );
    expect([p.interviewerLabel, p.intervieweeLabel]).toEqual(["Interviewer:", "Interviewee:"]);
  });
});

describe("parseLabelledText", () => {
  const f = detectFormat("", ctx());
  it("reads turns back from their labels, unlabelled paragraphs continuing the turn", () => {
    expect(parseLabelledText("Sarah: Hi?\n\nDavid: Hello.\n\nMore from David.", f, ctx())).toEqual([
      { role: "interviewer", marked: true, paragraphs: ["Hi?"] },
      { role: "interviewee", marked: true, paragraphs: ["Hello.", "More from David."] },
    ]);
  });

  it("maps generic speaker labels by who asks, keeps a third speaker's label", () => {
    const turns = parseLabelledText("S1: Hello?\nS2: Hi.\nS3: Me too.\nS1: Why?\nS2: Because.", f, ctx());
    expect(turns?.map((t) => t.role ?? t.label)).toEqual([
      "interviewer",
      "interviewee",
      "S3",
      "interviewer",
      "interviewee",
    ]);
  });

  it("ignores colons that are not labels", () => {
    expect(parseLabelledText(fixture("interview"), f, ctx())).toBeNull();
    expect(parseLabelledText("The thing is: we had no money. Meet at 10:30 on https://x.test", f, ctx())).toBeNull();
  });
});

describe("tone rules", () => {
  it("expands contractions with has/had where the next word asks for it, keeping case", () => {
    expect(expandContractions("It's been long. I'd been there. Don't go, I'm gonna stay, yeah.")).toBe(
      "It has been long. I had been there. Do not go, I am going to stay, yes.",
    );
    expect(expandContractions("Don't you think so?")).toBe("Don't you think so?");
  });

  it("contracts only where natural", () => {
    expect(contract("I do not know if it is what I am. Let us go. We cannot.")).toBe(
      "I don't know if it's what I am. Let's go. We can't.",
    );
  });

  it("serious drops exclamation marks; pop adds one only to short enthusiastic answers", () => {
    expect(applyTone("That's amazing!", "serious", "en", "interviewee")).toBe("That is amazing.");
    expect(applyTone("本当にすごい！", "serious", "ja", "interviewee")).toBe("本当にすごい。");
    expect(applyTone("I love it.", "pop", "en", "interviewee")).toBe("I love it!");
    expect(applyTone("I love it.", "pop", "en", "interviewer")).toBe("I love it.");
    expect(applyTone("I did not love it.", "pop", "en", "interviewee")).toBe("I didn't love it.");
    expect(applyTone("It was a great time but the hours were very long indeed.", "pop", "en", "interviewee")).toMatch(
      /\.$/,
    );
  });
});

describe("detectTextLang", () => {
  it("reads the transcript's language, not the UI's", () => {
    expect(detectTextLang(fixture("interview"), "ja")).toBe("en");
    expect(detectTextLang(fixture("japanese"), "en")).toBe("ja");
    expect(detectTextLang(fixture("german"), "en")).toBe("de");
    expect(detectTextLang("你是怎么开始做这个工作的呢", "en")).toBe("zh");
    expect(detectTextLang("привет как дела", "en")).toBe("other");
    expect(detectTextLang("yes", "en")).toBe("en");
  });

  it("gives languages without correction rules none, and short unclear texts the UI language", () => {
    expect(
      detectTextLang("Il progetto è stato avviato nel 2019 e non è ancora finito, ma la strada è chiusa.", "en"),
    ).toBe("other");
    expect(detectTextLang("ja genau", "de")).toBe("de");
    expect(detectTextLang("ok thanks", "fr")).toBe("fr");
    expect(detectTextLang("ok thanks", "ja")).toBe("other");
  });
});
