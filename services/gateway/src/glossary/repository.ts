// The account's glossary in Postgres (users.glossary, a JSON array of strings).
import { AppError, glossaryOf } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";

export function glossaryRepository(db: Db) {
  return {
    async read(userId: string): Promise<string[]> {
      const row = await db.user.findUnique({ where: { id: userId }, select: { glossary: true } });
      if (!row) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
      return glossaryOf(row.glossary);
    },
    async write(userId: string, terms: string[]): Promise<string[]> {
      const { count } = await db.user.updateMany({ where: { id: userId }, data: { glossary: terms } });
      if (!count) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
      return terms;
    },
  };
}
export type GlossaryRepository = ReturnType<typeof glossaryRepository>;
