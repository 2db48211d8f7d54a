/** The interview's people as the sentence rules see them: the words that name or address them. */

import type { Role } from "./port.ts";

/** A person's name as lower-case word sequences that may address them ("david okafor", "david"). */
export interface Person {
  role: Role;
  forms: string[][];
}

const TITLES = new Set("mr mrs ms miss dr doctor prof professor frau herr madame monsieur señor señora sir".split(" "));

export function peopleOf(names: Array<[Role, string]>): Person[] {
  const out: Person[] = [];
  for (const [role, name] of names) {
    const words = name
      .toLowerCase()
      .split(/\s+/)
      .map((w) => w.replace(/[.,]/g, ""))
      .filter((w) => /^\p{L}[\p{L}'’-]*$/u.test(w));
    if (words.length === 0) continue;
    const forms = [words];
    if (words.length > 1 && !TITLES.has(words[0])) forms.push([words[0]]);
    out.push({ role, forms });
  }
  return out;
}

/** Length of a name that ends right before index `end` (0 if none). */
export function nameEndingAt(w: string[], end: number, people: Person[], from = 0): { len: number; role: Role | null } {
  let best = { len: 0, role: null as Role | null };
  for (const p of people) {
    for (const f of p.forms) {
      const start = end - f.length;
      if (start < from || f.length <= best.len) continue;
      if (f.every((x, k) => w[start + k] === x)) best = { len: f.length, role: p.role };
    }
  }
  return best;
}

export function nameStartingAt(w: string[], start: number, people: Person[]): { len: number; role: Role | null } {
  let best = { len: 0, role: null as Role | null };
  for (const p of people) {
    for (const f of p.forms) {
      if (f.length <= best.len) continue;
      if (f.every((x, k) => w[start + k] === x)) best = { len: f.length, role: p.role };
    }
  }
  return best;
}

/** Words before a name that make it part of the sentence, not a form of address ("with David"). */
export const NAME_GOVERNORS = new Set(
  "with to for and from by of about like at in on is was am i'm named called meet ask asked call than as or mister mit und von für zu bei avec et pour de con y para".split(
    " ",
  ),
);
