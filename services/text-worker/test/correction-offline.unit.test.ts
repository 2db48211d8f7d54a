import { memoryStepStore, speakerLabels } from "@kikitori/shared/server";
import { type CorrectionInput, createCorrectionEngine, OfflineCorrectionEngine } from "../src/correction/index.ts";
import { OpenAiCorrectionEngine } from "../src/correction/openai.ts";
import { correctionInput, type FixtureName, fixture } from "./fixtures/correction-transcripts.ts";

const engine = new OfflineCorrectionEngine();

const input = correctionInput;

async function correct(transcript: string, over: Partial<CorrectionInput> = {}): Promise<string> {
  return (await engine.correct(input(transcript, over))).text;
}

/** The text of each turn without its label, for labels "Name: ". */
function sentencesOf(text: string): string[] {
  return text
    .split(/\n+/)
    .map((l) => l.replace(/^[^:：]{1,40}[:：]\s*/, ""))
    .flatMap((l) => l.split(/(?<=[.?!])\s+/))
    .filter(Boolean);
}

const INTERVIEW = { interviewer: "Sarah", interviewee: "David Okafor" };

describe("offline engine: fillers and stutters", () => {
  it("removes English hesitations, repeated words and cut words", async () => {
    expect(await correct("um i i i think the the bakery w- we opened uh in twenty ten")).toBe(
      "Interviewee: I think the bakery we opened in twenty ten.",
    );
  });

  it("removes fillers set off by commas in punctuated text, and a tag 'you know?' does not make a question", async () => {
    expect(await correct("So, um, it was, like, huge, you know? And I, I loved it.")).toBe(
      "Interviewee: So it was huge. And I loved it.",
    );
  });

  it("keeps words that only look like fillers: like as a verb, kind of, legit doubles, numbers", async () => {
    const out = await correct("i like it a lot it was kind of hard that that was the plan call five five five one two");
    expect(out).toContain("I like it a lot");
    expect(out).toContain("kind of hard");
    expect(out).toContain("that that");
    expect(out).toContain("five five five one two");
  });

  it("leaves no filler or stutter in the fixtures", async () => {
    for (const name of ["interview", "voicemail", "phonecall", "whisper"] as const) {
      const out = await correct(fixture(name), INTERVIEW);
      expect(out).not.toMatch(/\b(um|uh|er|ah|hmm|mm)\b/i);
      expect(out).not.toMatch(/\b(\w+)- \1/i);
      expect(out).not.toMatch(/\b(i|the|which|and|it's|we) \1\b/i);
    }
  });

  it("drops ASR noise tags and pronunciation variants", async () => {
    expect(await correct("<s> the(2) company [NOISE] ++UH++ was founded </s> <sil> in nineteen ninety")).toBe(
      "Interviewee: The company was founded in nineteen ninety.",
    );
    expect(await correct("[Music] Welcome back to the show. [Applause] How are you? I'm good.")).toBe(
      "Interviewer: Welcome back to the show. How are you?\n\nInterviewee: I'm good.",
    );
  });
});

describe("offline engine: sentences", () => {
  it("punctuates an unpunctuated interview: questions end with ?, the others with .", async () => {
    const out = await correct(fixture("interview"), INTERVIEW);
    expect(out).toContain("Sarah: So how did you get started with the bakery?");
    expect(out).toContain("Sarah: Did you ever think about giving up?");
    expect(out).toContain("Sarah: How has the business changed since then?");
    expect(out).toContain("David Okafor: Yes, many times.");
    for (const line of out.split("\n").filter(Boolean)) expect(line).toMatch(/[.?!]$/);
  });

  it("capitalises sentence starts, the pronoun I and the names", async () => {
    for (const name of ["interview", "phonecall", "voicemail", "whisper"] as const) {
      const out = await correct(fixture(name), INTERVIEW);
      for (const s of sentencesOf(out)) expect(s).toMatch(/^[A-Z0-9"“]/);
      expect(out).not.toMatch(/\bi\b|\bi'm\b/);
    }
    const out = await correct(fixture("interview"), INTERVIEW);
    expect(out).toContain("David Okafor");
    expect(out).toContain("Thank you, Sarah.");
    expect(out).not.toMatch(/\b(sarah|david)\b/);
  });

  it("splits questions from answers in a phone call", async () => {
    expect(await correct(fixture("phonecall"), { fileType: "phonecall" })).toBe(
      [
        "Interviewer: Hello, hi, is this the customer service line?",
        "Interviewee: Yes, it is.",
        "Interviewer: How can I help you?",
        "Interviewee: I ordered a jacket last week and it still hasn't arrived.",
        "Interviewer: Okay, can you give me your order number?",
        "Interviewee: Sure, it's four four seven one two nine. Thank you. Let me check it looks like the package was delayed at the ware house.",
        "Interviewer: When will it arrive?",
        "Interviewee: It should arrive by Friday.",
        "Interviewer: Is there anything else I can help you with?",
        "Interviewee: No, that's all. Thank you. Okay, have a nice day. You too. Bye.",
      ].join("\n\n"),
    );
  });

  it("keeps Whisper's punctuation and sentence structure", async () => {
    const out = await correct(fixture("whisper"), { interviewer: "Ana", interviewee: "Leo" });
    expect(out).toBe(
      [
        "Ana: So, thanks for coming in today. Could you tell me a little bit about your background?",
        "Leo: Yeah, sure. So I studied marine biology at the University of Washington, and then I worked for five years at an aquarium in Monterey. It was a dream job.",
        "Ana: Why did you leave?",
        "Leo: Well, the funding got cut, and I wanted to do more research.",
        "Ana: That makes sense. What are you working on now?",
        "Leo: Right now I'm studying how kelp forests recover after heat waves. It's slow work, but it's really, really important.",
        "Ana: Do you think the forests will come back?",
        "Leo: I don't know. I'm gonna be honest, I'm not sure anyone knows yet.",
      ].join("\n\n"),
    );
  });
});

describe("offline engine: turns and labels", () => {
  const small = "so how did you start well i i started in twenty ten and what was hard honestly the hours were long";

  it("labels question and answer turns with the given names", async () => {
    expect(await correct(small, { interviewer: "Sarah", interviewee: "David" })).toBe(
      "Sarah: So how did you start?\n\nDavid: Well, I started in twenty ten.\n\nSarah: And what was hard?\n\nDavid: Honestly, the hours were long.",
    );
  });

  it("falls back to the default labels, localized ones when given", async () => {
    expect(await correct(small)).toMatch(/^Interviewer: So how did you start\?\n\nInterviewee: Well/);
    const ja = await correct(small, { labels: { interviewer: "聞き手", interviewee: "話し手" } });
    expect(ja).toMatch(/^聞き手: So how did you start\?\n\n話し手: Well/);
  });

  it("alternates speakers and never labels two turns in a row with the same name", async () => {
    const out = await correct(fixture("interview"), INTERVIEW);
    const labels = out.split("\n\n").map((t) => t.split(":")[0]);
    expect(labels[0]).toBe("Sarah");
    expect(new Set(labels)).toEqual(new Set(["Sarah", "David Okafor"]));
    for (let i = 1; i < labels.length; i++) expect(labels[i]).not.toBe(labels[i - 1]);
    expect(out).toContain("Sarah: Wow, that's amazing. What was the hardest part in the first year?");
    expect(out).toContain("Sarah: That's great advice. David, thank you so much for your time.");
    expect(out).toContain("David Okafor: Thank you, Sarah. It was a pleasure.");
  });

  it("writes a voicemail as one speaker's paragraphs", async () => {
    const out = await correct(fixture("voicemail"), { fileType: "voicemail", interviewee: "Mark" });
    expect(out.startsWith("Mark: Hi, this is mark from the bright smile dental office calling for jessica.")).toBe(
      true,
    );
    expect(out.match(/Mark:/g)).toHaveLength(1);
    expect(out).not.toContain("Interviewer");
    expect(out).toContain("give us a call back at five five five zero one nine two");
  });

  it("keeps a meeting without any question as one labelled block", async () => {
    expect(await correct("the weather was nice and we went to the park and then we had lunch")).toBe(
      "Interviewee: The weather was nice and we went to the park. And then we had lunch.",
    );
  });

  it("uses speaker labels already in the transcript as explicit turn cues", async () => {
    const raw =
      "Speaker 1: so how did you start\nSpeaker 2: well i i just started\nSpeaker 1: and then what\nSpeaker 2: then we grew";
    expect(await correct(raw, { interviewer: "Ana", interviewee: "Leo" })).toBe(
      "Ana: So how did you start?\n\nLeo: Well, I just started.\n\nAna: And then what?\n\nLeo: Then we grew.",
    );
  });

  it("alternates on dash-marked turns", async () => {
    const raw = "- hello how are you\n- fine thanks\n- good to hear";
    expect(await correct(raw, { interviewer: "Ana", interviewee: "Leo" })).toBe(
      "Ana: Hello, how are you?\n\nLeo: Fine thanks.\n\nAna: Good to hear.",
    );
  });
});

describe("offline engine: the example's format", () => {
  const small = "so how did you start well i i started in twenty ten and what was hard honestly the hours were long";
  const names = { interviewer: "Sarah", interviewee: "David" };

  it("Q:/A: on single lines", async () => {
    expect(await correct(small, { ...names, interviewExample: "Q: Where were you born?\nA: In Osaka." })).toBe(
      "Q: So how did you start?\nA: Well, I started in twenty ten.\nQ: And what was hard?\nA: Honestly, the hours were long.",
    );
  });

  it("**Name**: with blank lines, the example's names replaced by the given ones", async () => {
    expect(
      await correct(small, { ...names, interviewExample: "**Host**: Where were you born?\n\n**Guest**: In Osaka." }),
    ).toBe(
      "**Sarah**: So how did you start?\n\n**David**: Well, I started in twenty ten.\n\n**Sarah**: And what was hard?\n\n**David**: Honestly, the hours were long.",
    );
  });

  it("keeps role words of the example when no names are given, and bold labels with the colon inside", async () => {
    expect(await correct(small, { interviewExample: "**Host:** Where?\n**Guest:** Osaka." })).toMatch(
      /^\*\*Host:\*\* So how did you start\?\n\*\*Guest:\*\* Well, I started in twenty ten\.\n\*\*Host:\*\* /,
    );
  });

  it("dashes without names", async () => {
    expect(await correct(small, { ...names, interviewExample: "— Where were you born?\n— In Osaka." })).toBe(
      "— So how did you start?\n— Well, I started in twenty ten.\n— And what was hard?\n— Honestly, the hours were long.",
    );
  });

  it("'Interviewer (name):' and 'Name —' styles", async () => {
    const paren = await correct(small, {
      ...names,
      interviewExample: "Interviewer (Jane): Where?\nInterviewee (Tom): Osaka.",
    });
    expect(paren).toMatch(/^Interviewer \(Sarah\): So how did you start\?\nInterviewee \(David\): Well/);
    const dash = await correct(small, { ...names, interviewExample: "Jane — Where?\nTom — Osaka." });
    expect(dash).toMatch(/^Sarah — So how did you start\?\nDavid — Well/);
  });

  it("a free-text example changes nothing but is harmless", async () => {
    expect(await correct(small, { ...names, interviewExample: "Please keep it short and friendly." })).toBe(
      await correct(small, names),
    );
  });
});

describe("offline engine: tone", () => {
  it("formal spells out contractions and slang", async () => {
    expect(await correct("i don't know yeah i'm gonna try it's been hard we wanna win nope", { tone: "formal" })).toBe(
      "Interviewee: I do not know. Yes, I am going to try it has been hard we want to win. No.",
    );
    const whisper = await correct(fixture("whisper"), { tone: "formal" });
    expect(whisper).toContain("I do not know. I am going to be honest, I am not sure anyone knows yet.");
    expect(whisper).toContain("Right now I am studying");
  });

  it("casual contracts full forms where natural, not at a clause end", async () => {
    expect(await correct("what happened i do not know i am sure it is fine yes i am", { tone: "casual" })).toBe(
      "Interviewer: What happened?\n\nInterviewee: I don't know I'm sure it's fine. Yes, I am.",
    );
  });

  it("serious spells out and drops exclamation marks", async () => {
    expect(await correct("Wow! That's great! I can't believe it.", { tone: "serious" })).toBe(
      "Interviewee: Wow. That is great. I cannot believe it.",
    );
  });

  it("pop lets short enthusiastic answers end with !, nothing else", async () => {
    expect(await correct("did you like it i love it it was amazing", { tone: "pop" })).toBe(
      "Interviewer: Did you like it?\n\nInterviewee: I love it! It was amazing!",
    );
    const out = await correct(fixture("interview"), { ...INTERVIEW, tone: "pop" });
    expect(out.match(/!/g)?.length ?? 0).toBeLessThanOrEqual(2);
    expect(out).toContain("David Okafor: Thank you, Sarah. It was a pleasure.");
  });

  it("no tone leaves the wording alone", async () => {
    const out = await correct("i don't know yeah i'm gonna try", { tone: null });
    expect(out).toBe("Interviewee: I don't know. Yeah, I'm gonna try.");
  });
});

describe("offline engine: other languages", () => {
  it("Japanese: fillers removed, 。/？ endings, no spaces, labels with ：", async () => {
    const out = await correct(fixture("japanese"), { interviewer: "山田", interviewee: "佐藤", language: "ja" });
    expect(out).toBe(
      [
        "山田：本日はよろしくお願いします。よろしくお願いします。最初に、作家になったきっかけを教えていただけますか？",
        "佐藤：子供の頃から本を読むのが好きで、高校生の時に初めて短編を書きました。それが、地元の文芸誌に載ったんです。",
        "山田：なるほど、一番影響を受けた作家は誰ですか？",
        "佐藤：やっぱり、村上春樹さんですね。文章のリズムが好きなんです。",
        "山田：最後に、これから書きたい作品について教えてください。",
        "佐藤：次は、家族をテーマにした長編を書きたいと思っています。",
      ].join("\n\n"),
    );
    expect(out).not.toMatch(/えー|あのー|うーん|まあ| /);
  });

  it("Japanese with default labels of the UI language", async () => {
    const out = await correct(fixture("japanese"), { language: "ja" });
    expect(out.startsWith("インタビュアー：本日は")).toBe(true);
    expect(out).toContain("インタビュイー：子供の頃から");
  });

  it("German: fillers removed, questions marked, turns labelled", async () => {
    expect(await correct(fixture("german"), { interviewee: "Frau Becker", language: "de" })).toBe(
      [
        "Interviewer: Frau Becker, wie sind sie zum unterrichten gekommen?",
        "Frau Becker: Also ich wollte eigentlich ärztin werden aber dann habe ich gemerkt dass mir das erklären mehr spaß macht.",
        "Interviewer: Und was gefällt ihnen am meisten an ihrem beruf?",
        "Frau Becker: Also die kinder natürlich jeder tag ist anders.",
      ].join("\n\n"),
    );
  });

  it("Chinese: 嗯/呃/那个 hesitations removed, 。/？ endings from 吗/呢", async () => {
    const raw = "嗯 你好 呃 你是怎么开始做这个工作的呢 那个 那个 我大学毕业以后就开始了 就是说， 一直很喜欢";
    expect(await correct(raw, { language: "zh" })).toBe(
      "采访者：你好，你是怎么开始做这个工作的呢？\n\n受访者：我大学毕业以后就开始了，一直很喜欢。",
    );
  });

  it("languages without rules: tidied, one labelled block unless a question mark shows the turns", async () => {
    // Default labels come from the interface language's translations.
    expect(await correct("привет   как дела у тебя  всё хорошо", { language: "ru" })).toBe(
      `${speakerLabels("ru").interviewee}: Привет как дела у тебя всё хорошо.`,
    );
    expect(speakerLabels("ru").interviewee).not.toBe("Interviewee");
    expect(await correct("Привет. Как дела? Всё хорошо, спасибо.")).toBe(
      "Interviewer: Привет. Как дела?\n\nInterviewee: Всё хорошо, спасибо.",
    );
    expect(await correct("สวัสดีครับ วันนี้เป็นอย่างไรบ้าง")).toBe("Interviewee: สวัสดีครับ วันนี้เป็นอย่างไรบ้าง");
  });

  it("never throws, whatever the input", async () => {
    const odd = [
      "",
      "   \n ",
      "um uh er",
      "!!! ??? ...",
      "😀 🎉",
      "a",
      "\u0000\u0001",
      "：：：",
      "Q: A: Q:",
      "— — —",
      "x".repeat(20_000),
    ];
    for (const t of odd) {
      for (const example of ["", "Q: x\nA: y", "— a\n— b", "**A**:"]) {
        await expect(engine.correct(input(t, { interviewExample: example }))).resolves.toBeDefined();
      }
    }
    expect((await engine.correct(input(""))).sections).toEqual([]);
    expect(await correct("um uh er")).toBe("");
  });
});

describe("offline engine: idempotence", () => {
  const formats: Array<Partial<CorrectionInput>> = [
    INTERVIEW,
    {},
    { interviewExample: "Q: What do you do?\nA: I bake bread." },
    { interviewExample: "**Host**: Hi!\n\n**Guest**: Hello.", interviewer: "Sarah" },
    { interviewExample: "— How are you?\n— Fine." },
    { interviewExample: "Interviewer (Jane): Why?\nInterviewee (Bob): Because.", ...INTERVIEW },
    { tone: "formal" },
    { tone: "casual" },
    { tone: "pop" },
    { tone: "serious", fileType: "voicemail" },
  ];
  const names: FixtureName[] = ["interview", "voicemail", "phonecall", "whisper", "japanese", "german"];

  it.each(names)("correcting the corrected %s again changes nothing", async (name) => {
    for (const over of formats) {
      const first = await correct(fixture(name), over);
      expect(await correct(first, over)).toBe(first);
    }
  });

  it("a long transcript corrected in many sections keeps its words and never doubles a label", async () => {
    const small = new OfflineCorrectionEngine({ sectionChars: 300 });
    const raw = [fixture("interview"), fixture("interview")].join(" ");
    const first = await small.correct(input(raw, INTERVIEW));
    expect(first.sections.length).toBeGreaterThan(5);
    const second = await small.correct(input(first.text, INTERVIEW));
    const words = (t: string) =>
      t
        .replace(/^(Sarah|David Okafor):/gm, "")
        .toLowerCase()
        .match(/[a-z']+/g);
    expect(words(second.text)).toEqual(words(first.text));
    for (const text of [first.text, second.text]) {
      expect(text).not.toMatch(/(Sarah|David Okafor):\s*(Sarah|David Okafor):/);
      for (const line of text.split("\n"))
        expect(line.match(/(Sarah|David Okafor):/g)?.length ?? 0).toBeLessThanOrEqual(1);
    }
  });
});

describe("offline engine: sections, progress, resume", () => {
  const small = new OfflineCorrectionEngine({ sectionChars: 300 });

  it("reports each section and joins them into the text", async () => {
    const calls: Array<[number, string, number, number]> = [];
    const result = await small.correct(input(fixture("interview"), INTERVIEW), {
      onSection: (i, text, done, total) => {
        calls.push([i, text, done, total]);
      },
    });
    const total = result.sections.length;
    expect(total).toBeGreaterThan(3);
    expect(calls.map((c) => c[0])).toEqual([...Array(total).keys()]);
    expect(calls.map((c) => c[2])).toEqual([...Array(total).keys()].map((i) => i + 1));
    expect(calls.every((c) => c[3] === total)).toBe(true);
    expect(calls.map((c) => c[1])).toEqual(result.sections);
    expect(result.text).toBe(result.sections.filter(Boolean).join("\n\n"));
    // Sections start at sentence starts: each one begins with a capital letter.
    for (const s of result.sections) expect(s).toMatch(/^[A-Z]/);
  });

  it("keeps resumed sections as they are, redoes none of them, and ends with the same text", async () => {
    const full = await small.correct(input(fixture("interview"), INTERVIEW));
    const resume = new Map([
      [0, full.sections[0]],
      [1, full.sections[1]],
    ]);
    const seen: number[] = [];
    const resumed = await small.correct(input(fixture("interview"), INTERVIEW), {
      steps: memoryStepStore(resume),
      onSection: (i, _t, done) => {
        seen.push(i);
        expect(done).toBe(i + 1);
      },
    });
    expect(seen[0]).toBe(2);
    expect(seen).not.toContain(0);
    expect(resumed.text).toBe(full.text);
    const marked = await small.correct(input(fixture("interview"), INTERVIEW), {
      steps: memoryStepStore(new Map([[0, "KEPT"]])),
    });
    expect(marked.sections[0]).toBe("KEPT");
    expect(marked.text.startsWith("KEPT\n\n")).toBe(true);
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    const run = small.correct(input(fixture("interview"), INTERVIEW), {
      signal: controller.signal,
      onSection: (i) => {
        if (i === 1) controller.abort(new Error("stop"));
      },
    });
    await expect(run).rejects.toThrow("stop");
  });
});

describe("createCorrectionEngine", () => {
  const base = { CORRECTION_MODEL: "gpt-4o-mini", CORRECTION_SECTION_CHARS: 6000, OPENAI_TIMEOUT_MS: 1000 };
  it("builds the configured engine", () => {
    expect(createCorrectionEngine({ ...base, CORRECTION_ENGINE: "offline" })).toBeInstanceOf(OfflineCorrectionEngine);
    const openai = createCorrectionEngine({
      ...base,
      CORRECTION_ENGINE: "openai",
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
      OPENAI_API_KEY: "k",
    });
    expect(openai).toBeInstanceOf(OpenAiCorrectionEngine);
    expect(openai.name).toBe("openai");
  });
});
