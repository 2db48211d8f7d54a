/**
 * Turn labels: how turns look (from the user's example, else "Name: text" with a blank line between
 * turns), and reading labels back from text that already has them (so a second pass never doubles
 * them, and speaker labels of the ASR are reused as explicit turn cues).
 */

import type { Role } from "./port.ts";

export interface TurnFormat {
  /** Complete label of each role, decoration included: "John:", "**Q:**", "Mary —", "—". */
  interviewerLabel: string;
  intervieweeLabel: string;
  /** Between label and text: " " or "" (after a full-width colon). */
  gap: string;
  /** Between turns (and paragraphs): a blank line or a single newline. */
  separator: "\n\n" | "\n";
  /** How a label other than the two roles' is drawn (a third speaker): "{L}" is replaced. */
  template: string;
}

export interface FormatContext {
  interviewer: string;
  interviewee: string;
  /** Labels used when a name is empty. */
  defaults: { interviewer: string; interviewee: string };
  /** Japanese/Chinese transcript: "Name：text" without a space by default. */
  spaceless: boolean;
}

const Q_WORDS = new Set(["q", "q.", "question", "質問", "問", "ｑ", "问", "pregunta", "frage", "f"]);
const A_WORDS = new Set(["a", "a.", "answer", "回答", "答", "答え", "ａ", "antwort", "respuesta", "réponse", "r"]);
const Q_TO_A: Record<string, string> = {
  q: "A",
  question: "Answer",
  質問: "回答",
  問: "答",
  ｑ: "Ａ",
  问: "答",
  frage: "Antwort",
  pregunta: "Respuesta",
};
const INTERVIEWER_WORDS =
  /^(interviewer|host|moderator|journalist|reporter|interviewerin|intervieweur|entrevistador|entrevistadora|インタビュアー|聞き手|記者|司会|采访者|记者|主持人|inteviewer)$/i;
const INTERVIEWEE_WORDS =
  /^(interviewee|guest|respondent|expert|befragte|befragter|gast|invité|invitée|entrevistado|entrevistada|インタビュイー|話し手|ゲスト|回答者|受访者|嘉宾)$/i;

interface LabelMatch {
  label: string;
  /** The label's decoration with "{L}" for the label text. */
  template: string;
  gap: string;
  rest: string;
}

/** Reads a label at the start of a line: "**Name**:", "**Name:**", "Name:", "Name：", "Name —". */
export function matchLabel(line: string): LabelMatch | null {
  let m = /^\s*([QAＱＡ])([.．])\s+/.exec(line);
  if (m) return { label: m[1], template: `{L}${m[2]}`, gap: " ", rest: line.slice(m[0].length) };
  m = /^\s*\*\*([^*\n]{1,60}?)\s*([:：])\*\*(\s*)/.exec(line);
  if (m) return { label: m[1].trim(), template: `**{L}${m[2]}**`, gap: m[3] ? " " : "", rest: line.slice(m[0].length) };
  m = /^\s*\*\*([^*\n]{1,60}?)\*\*\s*([:：]?)(\s*)/.exec(line);
  if (m)
    return {
      label: m[1].trim(),
      template: `**{L}**${m[2]}`,
      gap: m[3] || !m[2] ? " " : "",
      rest: line.slice(m[0].length),
    };
  m = /^\s*([^\s:：—–―*\-"“「][^:：\n]{0,59}?)\s*([:：])(\s*)(?!\/\/)/.exec(line);
  if (m && !/^[\d\s]+$/.test(m[1]) && !/^\d/.test(line.slice(m[0].length)) && m[1].trim().split(/\s+/).length <= 5) {
    return {
      label: m[1].trim(),
      template: `{L}${m[2]}`,
      gap: m[3] || m[2] === ":" ? " " : "",
      rest: line.slice(m[0].length),
    };
  }
  m = /^\s*([^\s—–―\n"“「][^—–―\n]{0,39}?)\s+([—–―])\s+/.exec(line);
  if (m && m[1].trim().split(/\s+/).length <= 4)
    return { label: m[1].trim(), template: `{L} ${m[2]}`, gap: " ", rest: line.slice(m[0].length) };
  return null;
}

/** A dash that opens a turn without a name ("— ..."). */
const DASH_LINE = /^\s*([—–―]|-(?=\s))\s*/;

function normLabel(label: string): string {
  return label
    .replace(/\*\*/g, "")
    .replace(/[:：]$/, "")
    .trim()
    .toLowerCase();
}

function roleWord(label: string): Role | null {
  const base = normLabel(label).replace(/\s*[(（].*$/, "");
  if (Q_WORDS.has(base)) return "interviewer";
  if (A_WORDS.has(base)) return "interviewee";
  if (INTERVIEWER_WORDS.test(base)) return "interviewer";
  if (INTERVIEWEE_WORDS.test(base)) return "interviewee";
  return null;
}

export function defaultFormat(ctx: FormatContext): TurnFormat {
  const ivr = ctx.interviewer.trim() || ctx.defaults.interviewer;
  const ive = ctx.interviewee.trim() || ctx.defaults.interviewee;
  if (ctx.spaceless)
    return {
      interviewerLabel: `${ivr}：`,
      intervieweeLabel: `${ive}：`,
      gap: "",
      separator: "\n\n",
      template: "{L}：",
    };
  return { interviewerLabel: `${ivr}:`, intervieweeLabel: `${ive}:`, gap: " ", separator: "\n\n", template: "{L}:" };
}

/**
 * The format of the user's example: its label style (Q:/A:, Name:, **Name**:, Name —, — , or
 * "Interviewer (name):"), and whether turns are separated by a blank line or a single newline.
 * Names in the example are placeholders: the given names (or the default labels) replace them,
 * except Q/A markers and role words ("Host:") which are kept when no name is given.
 */
export function detectFormat(example: string, ctx: FormatContext): TurnFormat {
  const base = defaultFormat(ctx);
  const text = (example ?? "").replace(/\r\n?/g, "\n").trim();
  if (!text) return base;
  const lines = text.split("\n");
  const nonEmpty = lines.filter((l) => l.trim());
  const hasBlank = /\n[ \t]*\n/.test(text);
  const separator: TurnFormat["separator"] = nonEmpty.length >= 2 ? (hasBlank ? "\n\n" : "\n") : base.separator;

  const labelled = nonEmpty.map((l) => ({ line: l, m: matchLabel(l) })).filter((x) => x.m) as Array<{
    line: string;
    m: LabelMatch;
  }>;
  if (labelled.length === 0) {
    const dashes = nonEmpty.map((l) => DASH_LINE.exec(l)).filter(Boolean) as RegExpExecArray[];
    if (dashes.length === 0) return { ...base, separator };
    const dash = dashes[0][1];
    return { interviewerLabel: dash, intervieweeLabel: dash, gap: " ", separator, template: dash };
  }
  const { template, gap } = labelled[0].m;
  const distinct: Array<{ label: string; question: boolean }> = [];
  for (const { line, m } of labelled) {
    const known = distinct.find((d) => d.label === m.label);
    const question = /[?？]\s*$/.test(line);
    if (known) known.question ||= question;
    else distinct.push({ label: m.label, question });
  }
  const render = (label: string) => template.replace("{L}", label);
  const first = distinct[0].label;
  const firstBase = normLabel(first).replace(/\.$/, "");

  // Q/A markers: kept literally.
  if (Q_WORDS.has(normLabel(first)) || A_WORDS.has(normLabel(first))) {
    const q = distinct.find((d) => Q_WORDS.has(normLabel(d.label)))?.label;
    const a = distinct.find((d) => A_WORDS.has(normLabel(d.label)))?.label;
    const qLabel = q ?? (a && /^[Ａ答回]/.test(a) ? (a === "Ａ" ? "Ｑ" : a === "答" ? "問" : "質問") : "Q");
    const aLabel = a ?? Q_TO_A[firstBase] ?? "A";
    return { interviewerLabel: render(qLabel), intervieweeLabel: render(aLabel), gap, separator, template };
  }

  // Which example label belongs to whom.
  let ivrEx: string | undefined;
  let iveEx: string | undefined;
  for (const d of distinct) {
    const r = roleWord(d.label);
    if (r === "interviewer" && !ivrEx) ivrEx = d.label;
    if (r === "interviewee" && !iveEx) iveEx = d.label;
  }
  const rest = distinct.filter((d) => d.label !== ivrEx && d.label !== iveEx);
  if (!ivrEx && !iveEx && rest.length >= 2 && !rest[0].question && rest[1].question)
    [rest[0], rest[1]] = [rest[1], rest[0]];
  ivrEx ??= rest.shift()?.label;
  iveEx ??= rest.shift()?.label;

  const labelFor = (exLabel: string | undefined, name: string, fallback: string): string => {
    const given = name.trim();
    if (exLabel) {
      // "Interviewer (Alice)": keep the role word, put the name in the brackets.
      const paren = /^(.*?)\s*([(（])[^)）]*([)）])\s*$/.exec(exLabel);
      if (paren) return given ? `${paren[1]} ${paren[2]}${given}${paren[3]}`.replace(/（ /, "（") : paren[1];
      if (!given && roleWord(exLabel)) return exLabel;
    }
    return given || fallback;
  };
  return {
    interviewerLabel: render(labelFor(ivrEx, ctx.interviewer, ctx.defaults.interviewer)),
    intervieweeLabel: render(labelFor(iveEx, ctx.interviewee, ctx.defaults.interviewee)),
    gap,
    separator,
    template,
  };
}

/* ------------------------------------------------------------------ */
/* Reading labelled text                                                */
/* ------------------------------------------------------------------ */

export interface ExplicitTurn {
  /** null: to be decided by question detection (dash turns, unlabelled opening text). */
  role: Role | null;
  /** A third speaker's label, drawn with the format's template. */
  label?: string;
  /** Whether the turn was explicitly marked (a label or a dash), so its boundary is kept. */
  marked: boolean;
  paragraphs: string[];
}

const SPEAKER_GENERIC =
  /^(speaker|spk|sprecher|intervenant|hablante|話者|说话人|person|voice)[\s_-]*\d+$|^s\d+$|^speaker[\s_-]*[a-z]$/i;

type LabelRow = { kind: "label"; label: string; role: Role | null; generic: boolean; rest: string; line: string };
type TextRow = LabelRow | { kind: "dash"; rest: string } | { kind: "plain"; rest: string } | { kind: "blank" };

/** A label of the format's template, without its bold marks and trailing dash, normalised. */
const stripTemplate = (full: string) => normLabel(full.replace(/\*\*/g, "").replace(/\s*[—–―]$/, ""));

/** The labels that name a role: the format's own, the names given, the defaults and the plain words. */
function knownLabels(format: TurnFormat, ctx: FormatContext): Map<string, Role> {
  const known = new Map<string, Role>();
  const add = (label: string, role: Role) => {
    const k = normLabel(label);
    if (k && !known.has(k)) known.set(k, role);
  };
  if (format.interviewerLabel !== format.intervieweeLabel) {
    known.set(stripTemplate(format.interviewerLabel), "interviewer");
    known.set(stripTemplate(format.intervieweeLabel), "interviewee");
  }
  if (ctx.interviewer.trim()) add(ctx.interviewer, "interviewer");
  if (ctx.interviewee.trim()) add(ctx.interviewee, "interviewee");
  add(ctx.defaults.interviewer, "interviewer");
  add(ctx.defaults.interviewee, "interviewee");
  add("Interviewer", "interviewer");
  add("Interviewee", "interviewee");
  return known;
}

/** What one line is: a labelled turn, a dash turn, plain text or a blank line. */
function classifyLine(line: string, format: TurnFormat, known: Map<string, Role>): TextRow {
  if (!line) return { kind: "blank" };
  // The exact labels of the format first (also covers "—" for both roles).
  for (const [full, role] of [
    [format.interviewerLabel, "interviewer"],
    [format.intervieweeLabel, "interviewee"],
  ] as const) {
    if (
      full &&
      line.startsWith(full) &&
      (format.gap === "" || /^\s/.test(line.slice(full.length)) || line.length === full.length)
    ) {
      const rest = line.slice(full.length).trim();
      if (format.interviewerLabel === format.intervieweeLabel) return { kind: "dash", rest };
      return { kind: "label", label: stripTemplate(full), role, generic: false, rest, line };
    }
  }
  const labelled = matchLabel(line);
  if (labelled) {
    const k = normLabel(labelled.label);
    const role = known.get(k) ?? roleWord(labelled.label);
    if (role) return { kind: "label", label: labelled.label, role, generic: false, rest: labelled.rest.trim(), line };
    return {
      kind: "label",
      label: labelled.label,
      role: null,
      generic: SPEAKER_GENERIC.test(k),
      rest: labelled.rest.trim(),
      line,
    };
  }
  const dash = DASH_LINE.exec(line);
  if (dash) return { kind: "dash", rest: line.slice(dash[0].length).trim() };
  return { kind: "plain", rest: line };
}

/** Unknown speaker labels: the one asking most questions interviews; the next answers; others keep their label. */
function unknownSpeakerRoles(
  unknownRows: LabelRow[],
  unknownCounts: Map<string, number>,
  knownRows: LabelRow[],
): Map<string, Role | undefined> {
  const unknownRole = new Map<string, Role | undefined>();
  const stats = [...unknownCounts.keys()].map((label) => {
    const own = unknownRows.filter((r) => r.label === label);
    const questions = own.filter((r) => /[?？]\s*$/.test(r.rest)).length;
    return { label, ratio: questions / own.length };
  });
  const taken = new Set([...knownRows.map((r) => r.role)]);
  const order = [...stats].sort((a, b) => b.ratio - a.ratio);
  if (!taken.has("interviewer") && order.length) unknownRole.set(order.shift()!.label, "interviewer");
  const firstRest = stats.find((s) => !unknownRole.has(s.label));
  if (!taken.has("interviewee") && firstRest) unknownRole.set(firstRest.label, "interviewee");
  return unknownRole;
}

/** Groups the rows into turns: a used label or dash opens one; other lines join the current turn. */
function turnsFromRows(
  rows: TextRow[],
  format: TurnFormat,
  use: { speakerLike: boolean; useDash: boolean; unknownRole: Map<string, Role | undefined> },
): ExplicitTurn[] {
  const turns: ExplicitTurn[] = [];
  let current: ExplicitTurn | null = null;
  let paragraphOpen = false;
  for (const row of rows) {
    if (row.kind === "blank") {
      paragraphOpen = false;
      continue;
    }
    let starts: ExplicitTurn | null = null;
    if (row.kind === "label" && (row.role || use.speakerLike)) {
      const role = row.role ?? use.unknownRole.get(row.label) ?? null;
      starts = { role, marked: true, paragraphs: [], ...(role ? {} : { label: row.label }) };
    } else if (row.kind === "dash" && use.useDash) {
      starts = { role: null, marked: true, paragraphs: [] };
    }
    const rest = row.kind === "label" && !starts ? row.line : row.rest;
    if (starts) {
      current = starts;
      turns.push(current);
      if (rest) current.paragraphs.push(rest);
      paragraphOpen = !!rest;
      continue;
    }
    if (!current) {
      current = { role: null, marked: false, paragraphs: [] };
      turns.push(current);
    }
    // A single newline continues the paragraph only when turns are blank-line separated.
    if (paragraphOpen && format.separator === "\n\n" && current.paragraphs.length) {
      current.paragraphs[current.paragraphs.length - 1] += ` ${rest}`;
    } else current.paragraphs.push(rest);
    paragraphOpen = true;
  }
  return turns.filter((t) => t.paragraphs.length > 0 || t.marked);
}

/**
 * Splits text that already carries turn labels (a corrected text, or diarised ASR output) into
 * turns. Returns null when the text has no reliable labels, so the caller detects turns itself.
 */
export function parseLabelledText(text: string, format: TurnFormat, ctx: FormatContext): ExplicitTurn[] | null {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .split(/\n/)
    .map((l) => l.trim());
  const nonEmpty = lines.filter(Boolean);
  if (nonEmpty.length === 0) return null;

  const known = knownLabels(format, ctx);
  const rows = lines.map((line) => classifyLine(line, format, known));
  const labelRows = rows.filter((r): r is LabelRow => r.kind === "label");
  const knownRows = labelRows.filter((r) => r.role);
  const unknownRows = labelRows.filter((r) => !r.role);
  const dashRows = rows.filter((r) => r.kind === "dash");
  const share = (n: number) => n / nonEmpty.length;

  // Unknown labels count as speakers only when they clearly structure the text.
  const unknownCounts = new Map<string, number>();
  for (const r of unknownRows) unknownCounts.set(r.label, (unknownCounts.get(r.label) ?? 0) + 1);
  const speakerLike =
    unknownRows.length >= 2 &&
    unknownCounts.size <= 6 &&
    share(labelRows.length) >= 0.5 &&
    ([...unknownCounts.values()].some((n) => n >= 2) || unknownRows.every((r) => r.generic));
  const firstRow = rows.find((r) => r.kind !== "blank");
  const startsLabelled = !!firstRow && firstRow.kind === "label" && !!firstRow.role;
  const useKnown =
    knownRows.length >= 2 || (knownRows.length === 1 && (share(labelRows.length) >= 0.3 || startsLabelled));
  const dashFormat = format.interviewerLabel === format.intervieweeLabel;
  const useDash =
    dashRows.length >= 2 ||
    (dashRows.length === 1 && (nonEmpty.length === 1 || (dashFormat && firstRow?.kind === "dash")));
  if (!useKnown && !speakerLike && !useDash) return null;

  const unknownRole = speakerLike
    ? unknownSpeakerRoles(unknownRows, unknownCounts, knownRows)
    : new Map<string, Role | undefined>();
  return turnsFromRows(rows, format, { speakerLike, useDash, unknownRole });
}
