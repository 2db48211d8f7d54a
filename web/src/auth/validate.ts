/** Pure checks of the account forms' fields (unit-tested). */
import { emailSchema } from "@kikitori/shared";

export type EmailProblem = "required" | "invalid";

/** What is wrong with an e-mail field (the server's own rule), or null when it will be accepted. */
export function emailProblem(value: string): EmailProblem | null {
  if (!value.trim()) return "required";
  return emailSchema.safeParse(value).success ? null : "invalid";
}

/** The translation key of a field problem. */
export function emailProblemKey(problem: EmailProblem): string {
  return problem === "required" ? "validation.emailRequired" : "validation.emailInvalid";
}
