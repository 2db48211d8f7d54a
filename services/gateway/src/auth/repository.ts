// The sign-in records in Postgres: users (identity, password hash, verification, backend record),
// their single-use e-mail tokens (verification, password reset) and refresh tokens (one family per
// login). Jobs change only through the job lifecycle module.
import type { Db, Prisma } from "@kikitori/shared/db";
import { jobLifecycle } from "@kikitori/shared/server";
import type { AuthRepository } from "./usecases.ts";

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "P2002";

const login = { id: true, email: true, emailVerified: true, passwordHash: true, language: true } as const;

function repositoryOn(db: Db | Prisma.TransactionClient, transaction: AuthRepository["transaction"]): AuthRepository {
  return {
    transaction,
    async createUser(user, verifyToken) {
      try {
        await transaction(async (tx) => {
          await tx.insertUser(user);
          await tx.createEmailToken(verifyToken);
        });
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    async insertUser(user) {
      const { registeredAt, ...rest } = user;
      await db.user.create({ data: { ...rest, backendRecordedAt: registeredAt, periodStart: registeredAt } });
    },
    async deleteUnverifiedUser(uid) {
      await db.user.deleteMany({ where: { id: uid, emailVerified: false } });
    },
    userByEmail: (email) => db.user.findUnique({ where: { email }, select: login }),
    userById: (uid) => db.user.findUnique({ where: { id: uid }, select: { ...login, backendRecordedAt: true } }),
    async createEmailToken(t) {
      await db.emailToken.create({ data: t });
    },
    emailToken: (tokenHash) =>
      db.emailToken.findUnique({
        where: { tokenHash },
        select: { id: true, userId: true, kind: true, usedAt: true, expiresAt: true },
      }),
    async useEmailToken(id, now) {
      return (await db.emailToken.updateMany({ where: { id, usedAt: null }, data: { usedAt: now } })).count === 1;
    },
    async useEmailTokensOf(userId, kind, now) {
      await db.emailToken.updateMany({ where: { userId, kind, usedAt: null }, data: { usedAt: now } });
    },
    async markEmailVerified(uid) {
      await db.user.update({ where: { id: uid }, data: { emailVerified: true } });
    },
    async setPasswordVerified(uid, passwordHash) {
      await db.user.update({ where: { id: uid }, data: { passwordHash, emailVerified: true } });
    },
    async createRefreshToken(t) {
      await db.refreshToken.create({ data: t });
    },
    refreshToken: (tokenHash) =>
      db.refreshToken.findUnique({
        where: { tokenHash },
        select: {
          id: true,
          userId: true,
          familyId: true,
          revokedAt: true,
          rotatedAt: true,
          expiresAt: true,
          user: { select: { id: true, email: true, emailVerified: true } },
        },
      }),
    async rotateRefreshToken(id, now) {
      const { count } = await db.refreshToken.updateMany({
        where: { id, rotatedAt: null, revokedAt: null },
        data: { rotatedAt: now },
      });
      return count === 1;
    },
    async revokeFamily(familyId, now) {
      await db.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: now } });
    },
    async revokeUserTokens(userId, now) {
      await db.refreshToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
    },
    async markBackendRecorded(uid, now) {
      await db.user.update({ where: { id: uid }, data: { backendRecordedAt: now } });
    },
    async markAudioDeleted(uid, now) {
      await jobLifecycle.audioDeleted(db, { userId: uid }, now);
    },
    async forgetBackendUser(uid) {
      await transaction(async (tx) => {
        await tx.deleteUsageEvents(uid);
        await tx.clearBackendRecord(uid);
      });
    },
    async deleteUsageEvents(uid) {
      await db.usageEvent.deleteMany({ where: { userId: uid } });
    },
    async clearBackendRecord(uid) {
      await db.user.updateMany({ where: { id: uid }, data: { backendRecordedAt: null } });
    },
    async deleteUser(uid) {
      // Rows referencing the user cascade (tokens, usage events, jobs).
      await db.user.deleteMany({ where: { id: uid } });
    },
  };
}

export function authRepository(db: Db): AuthRepository {
  const transaction: AuthRepository["transaction"] = (fn) =>
    db.$transaction((tx) => {
      const inner = repositoryOn(tx, (nested) => nested(inner));
      return fn(inner);
    });
  return repositoryOn(db, transaction);
}
