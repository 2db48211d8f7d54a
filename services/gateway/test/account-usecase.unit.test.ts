// The account page's use cases (services/gateway/src/account/usecases.ts) on in-memory records: the
// password and e-mail changes and the billing history.
import { newTestAuthService } from "../../../tests/support/use-cases.ts";

const PASSWORD = "correct horse battery";

it("changes the password with the current one: other logins end, this one gets a new session", async () => {
  const t = newTestAuthService();
  const old = await t.verifiedUser("ana@example.test", PASSWORD);
  await expect(t.accounts.changePassword(old.user.uid, "not the password", "a new password 22")).rejects.toMatchObject({
    code: "PASSWORD_INCORRECT",
  });
  const fresh = await t.accounts.changePassword(old.user.uid, PASSWORD, "a new password 22");
  await expect(t.auth.refresh(old.refreshToken)).rejects.toMatchObject({ code: "INVALID_REFRESH_TOKEN" });
  await expect(t.auth.refresh(fresh.refreshToken)).resolves.toMatchObject({ user: { uid: old.user.uid } });
  expect(t.revoked).toContain(`user:${old.user.uid}`);
});

it("moves the account to a new address only once its link is used, and only once", async () => {
  const t = newTestAuthService();
  const { user } = await t.verifiedUser("bo@example.test", PASSWORD);
  await expect(t.accounts.requestEmailChange(user.uid, PASSWORD, "bo@example.test", "en")).rejects.toMatchObject({
    code: "VALIDATION_FAILED",
  });
  await t.accounts.requestEmailChange(user.uid, PASSWORD, "bo.new@example.test", "fr");
  expect(t.users.users.get(user.uid)?.email).toBe("bo@example.test");
  const token = t.lastLinkToken();

  await expect(t.accounts.confirmEmailChange(token)).resolves.toEqual({ email: "bo.new@example.test" });
  expect(t.users.users.get(user.uid)).toMatchObject({ email: "bo.new@example.test", emailVerified: true });
  await expect(t.accounts.confirmEmailChange(token)).rejects.toMatchObject({ code: "TOKEN_USED" });
  await expect(t.accounts.confirmEmailChange("x".repeat(40))).rejects.toMatchObject({ code: "INVALID_TOKEN" });
});

it("sends no link for a taken address but tells its owner, and refuses a link whose address was taken since", async () => {
  const t = newTestAuthService();
  const { user } = await t.verifiedUser("cy@example.test", PASSWORD);
  await t.verifiedUser("taken@example.test", PASSWORD, "ko");
  t.mails.length = 0;
  await expect(t.accounts.requestEmailChange(user.uid, PASSWORD, "taken@example.test", "en")).resolves.toEqual({
    pendingEmail: "taken@example.test",
  });
  expect(t.mails).toHaveLength(1);
  expect(t.mails[0]?.link).toBe("https://kikitori.test/ko/login");

  await t.accounts.requestEmailChange(user.uid, PASSWORD, "later@example.test", "en");
  const token = t.lastLinkToken();
  await t.verifiedUser("later@example.test", PASSWORD);
  await expect(t.accounts.confirmEmailChange(token)).rejects.toMatchObject({ code: "EMAIL_ALREADY_IN_USE" });
});

it("lists the billing history in major units, newest first, with the card named", async () => {
  const t = newTestAuthService();
  const { user } = await t.verifiedUser("di@example.test", PASSWORD);
  const base = {
    userId: user.uid,
    kind: "upgrade",
    fromPlan: "free",
    plan: "premium",
    periodStart: new Date("2026-03-01T00:00:00Z"),
    periodEnd: new Date("2026-04-01T00:00:00Z"),
  } as const;
  t.payments.push(
    {
      ...base,
      id: "p1",
      createdAt: new Date("2026-03-01T10:00:00Z"),
      amount: 1500,
      currency: "JPY",
      status: "succeeded",
      cardBrand: "visa",
      cardLast4: "4242",
    },
    {
      ...base,
      id: "p2",
      createdAt: new Date("2026-03-02T10:00:00Z"),
      amount: 1299,
      currency: "usd",
      status: "failed",
      cardBrand: null,
      cardLast4: "0002",
    },
    {
      ...base,
      id: "p3",
      createdAt: new Date("2026-03-03T10:00:00Z"),
      amount: 1,
      currency: "USD",
      status: "pending",
      cardBrand: null,
      cardLast4: null,
    },
  );
  const rows = await t.accounts.payments(user.uid);
  expect(rows.map((r) => [r.id, r.amount, r.card])).toEqual([
    ["p2", 12.99, "card •••• 0002"],
    ["p1", 1500, "visa •••• 4242"],
  ]);
});
