// The sign-in use cases (services/gateway/src/auth/usecases.ts) on in-memory records: registration
// and its link, refresh-token rotation and reuse, password reset, and the backend user's data.
import { newTestAuthService } from "../../../tests/support/use-cases.ts";

const PASSWORD = "correct horse battery";

it("registers an account whose link verifies it once; login waits for the link", async () => {
  const t = newTestAuthService();
  const { mail } = await t.auth.register("ana@example.test", PASSWORD, "ja");
  expect(t.mails).toEqual([]); // sent after the answer, by the route
  await mail();
  expect(t.mails.map((m) => m.to)).toEqual(["ana@example.test"]);
  expect(t.mails[0]?.link).toMatch(/^https:\/\/kikitori\.test\/ja\/.*\?token=/);
  await expect(t.auth.login("ana@example.test", PASSWORD)).rejects.toMatchObject({ code: "EMAIL_NOT_VERIFIED" });

  const token = t.lastLinkToken();
  await t.auth.verifyEmail(token);
  await expect(t.auth.verifyEmail(token)).rejects.toMatchObject({ code: "TOKEN_USED" });
  const session = await t.auth.login("ana@example.test", PASSWORD);
  expect(session.user).toMatchObject({ email: "ana@example.test", emailVerified: true });
  await expect(t.auth.login("ana@example.test", "wrong password!")).rejects.toMatchObject({
    code: "INVALID_CREDENTIALS",
  });
});

it("answers a taken address like a new one, and tells its owner instead of making a second account", async () => {
  const t = newTestAuthService();
  await t.verifiedUser("ana@example.test", PASSWORD, "de");
  t.mails.length = 0;
  const { mail } = await t.auth.register("ana@example.test", "another password 1", "en");
  await mail();
  expect(t.users.users.size).toBe(1);
  // In the owner's language, pointing at the password reset.
  expect(t.mails).toHaveLength(1);
  expect(t.mails[0]?.link).toBe("https://kikitori.test/de/password-reset");
});

it("undoes a registration whose verification mail cannot be sent", async () => {
  const t = newTestAuthService();
  const { mail } = await t.auth.register("bo@example.test", PASSWORD, "en");
  expect(t.users.users.size).toBe(1);
  t.smtp.down = true;
  await expect(mail()).rejects.toThrow("smtp down");
  // The address is free to register again.
  expect(t.users.users.size).toBe(0);
});

it("rotates refresh tokens; a replaced one used again after the grace window ends the whole login", async () => {
  const t = newTestAuthService();
  const first = await t.verifiedUser("cy@example.test", PASSWORD);
  const second = await t.auth.refresh(first.refreshToken);
  expect(second.refreshToken).not.toBe(first.refreshToken);

  // Two tabs racing: the old token again within 30 s is refused, the login stays.
  t.clock.now = new Date(t.clock.now.getTime() + 10_000);
  await expect(t.auth.refresh(first.refreshToken)).rejects.toMatchObject({ code: "INVALID_REFRESH_TOKEN" });
  expect(t.ended).toEqual([]);

  t.clock.now = new Date(t.clock.now.getTime() + 21_000);
  await expect(t.auth.refresh(first.refreshToken)).rejects.toMatchObject({ code: "INVALID_REFRESH_TOKEN" });
  const uid = second.user.uid;
  expect(t.ended).toEqual([{ uid, sid: expect.any(String) }]);
  expect(t.revoked).toEqual([`session:${t.ended[0]?.sid}`]);
  await expect(t.auth.refresh(second.refreshToken)).rejects.toMatchObject({ code: "INVALID_REFRESH_TOKEN" });
});

it("resets a password with its link: the address counts as verified and every login ends", async () => {
  const t = newTestAuthService();
  const session = await t.verifiedUser("di@example.test", PASSWORD);
  await t.auth.requestPasswordReset("di@example.test", "en");
  await t.auth.requestPasswordReset("nobody@example.test", "en");
  const first = t.lastLinkToken();
  await t.auth.requestPasswordReset("di@example.test", "en");
  const second = t.lastLinkToken();
  await t.auth.checkPasswordResetToken(second);

  await t.auth.confirmPasswordReset(second, "a brand new password");
  // The other reset link of the user is used up with it; the old session is gone.
  await expect(t.auth.checkPasswordResetToken(first)).rejects.toMatchObject({ code: "TOKEN_USED" });
  await expect(t.auth.refresh(session.refreshToken)).rejects.toMatchObject({ code: "INVALID_REFRESH_TOKEN" });
  expect(t.revoked).toContain(`user:${session.user.uid}`);
  await expect(t.auth.login("di@example.test", "a brand new password")).resolves.toMatchObject({
    user: { emailVerified: true },
  });
});

it("refuses an expired reset link", async () => {
  const t = newTestAuthService();
  await t.verifiedUser("ed@example.test", PASSWORD);
  await t.auth.requestPasswordReset("ed@example.test", "en");
  t.clock.now = new Date(t.clock.now.getTime() + 61 * 60_000);
  await expect(t.auth.confirmPasswordReset(t.lastLinkToken(), "a brand new password")).rejects.toMatchObject({
    code: "EMAIL_TOKEN_EXPIRED",
  });
});

it("deletes the backend user's data: audio marked gone first, objects, usage events and the record", async () => {
  const t = newTestAuthService();
  const { user } = await t.verifiedUser("fa@example.test", PASSWORD);
  t.users.usageEvents.push({ userId: user.uid }, { userId: "someone-else" });
  await t.auth.deleteBackendUser(user.uid);
  expect(t.users.audioDeletedOf).toEqual([user.uid]);
  expect(t.removedPrefixes).toEqual([`users/${user.uid}/`]);
  expect(t.users.usageEvents).toEqual([{ userId: "someone-else" }]);
  expect(t.users.users.get(user.uid)?.backendRecordedAt).toBeNull();

  await expect(t.auth.recordBackendUser(user.uid, "other@example.test")).rejects.toMatchObject({
    code: "VALIDATION_FAILED",
  });
  await t.auth.recordBackendUser(user.uid, "fa@example.test");
  expect(t.users.users.get(user.uid)?.backendRecordedAt).toEqual(t.clock.now);
});

it("checks the password before a destructive call, and deletes the account with a confirmation mail", async () => {
  const t = newTestAuthService();
  const { user } = await t.verifiedUser("gu@example.test", PASSWORD);
  await expect(t.auth.confirmPassword(user.uid, "not the password")).rejects.toMatchObject({
    code: "PASSWORD_INCORRECT",
  });
  await t.auth.confirmPassword(user.uid, PASSWORD);
  t.mails.length = 0;
  await t.auth.deleteAccount(user.uid);
  expect(t.users.users.size).toBe(0);
  expect(t.removedPrefixes).toEqual([`users/${user.uid}/`]);
  expect(t.mails.map((m) => m.to)).toEqual(["gu@example.test"]);
  await expect(t.auth.confirmPassword(user.uid, PASSWORD)).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
});
