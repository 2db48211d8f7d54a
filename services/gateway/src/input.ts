import { AppError } from "@kikitori/shared";

/**
 * Characters no text column can hold or no UTF-8 can carry: NUL (PostgreSQL refuses it in text) and
 * UTF-16 surrogates without their pair (they have no UTF-8 form). Input holding one is refused with
 * 400 VALIDATION_FAILED before it reaches a database, a queue or a worker.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasUnstorableChars(s: string): boolean {
  return s.includes("\u0000") || LONE_SURROGATE.test(s);
}

/** The path of the first string (or key) in a parsed JSON value that holds an unstorable character. */
export function findUnstorable(value: unknown, path = "body", depth = 0): string | null {
  if (typeof value === "string") return hasUnstorableChars(value) ? path : null;
  // Raw bodies (the payment webhook keeps its exact bytes) are not text to check.
  if (depth > 32 || value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = findUnstorable(value[i], `${path}.${i}`, depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    if (hasUnstorableChars(k)) return `${path}.${k}`;
    const p = findUnstorable(v, `${path}.${k}`, depth + 1);
    if (p) return p;
  }
  return null;
}

/** preValidation hook: a JSON body with a NUL byte or a lone surrogate anywhere is a 400. */
export async function refuseUnstorableBody(req: { body?: unknown }): Promise<void> {
  const at = findUnstorable(req.body);
  if (at) {
    throw new AppError("VALIDATION_FAILED", `${at} contains a NUL byte or an unpaired surrogate`, {
      details: [{ path: at, message: "contains a NUL byte or an unpaired surrogate" }],
    });
  }
}
