// Reads the stages of a multi-stage Dockerfile, so tests can check what one build target ends up with
// (its own instructions after those of the stages it is built FROM). Continuation lines are joined.
import { readFileSync } from "node:fs";

export interface Stage {
  name: string;
  /** The stage this one is built FROM, or null for an image. */
  parent: string | null;
  /** Instructions of this stage only (the FROM line first), continuations joined, comments dropped. */
  lines: string[];
}

export function readStages(file: string): Map<string, Stage> {
  const joined = readFileSync(file, "utf8")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages = new Map<string, Stage>();
  let current: Stage | null = null;
  for (const line of joined) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+([\w.-]+))?$/i.exec(line);
    if (from) {
      const name = from[2] ?? `#${stages.size}`;
      current = { name, parent: stages.has(from[1]) ? from[1] : null, lines: [line] };
      stages.set(name, current);
    } else if (current) {
      current.lines.push(line);
    }
  }
  return stages;
}

/** The instructions a target is built with: its ancestors' first, then its own. Throws for an unknown target. */
export function targetLines(stages: Map<string, Stage>, target: string): string[] {
  const chain: Stage[] = [];
  for (let s = stages.get(target); s; s = s.parent ? stages.get(s.parent) : undefined) chain.unshift(s);
  if (chain.length === 0) throw new Error(`no stage named ${target}`);
  return chain.flatMap((s) => s.lines);
}

/** The last instruction of a kind a target ends with (CMD, USER, HEALTHCHECK...), or undefined. */
export function lastOf(lines: string[], instruction: string): string | undefined {
  return lines.filter((l) => new RegExp(`^${instruction}\\s`, "i").test(l)).at(-1);
}
