// Plan-change e-mails through a real SMTP catcher, in the user's language: upgrade charged, switch
// scheduled, switch cancelled, scheduled switch applied at the reset, renewal charged, renewal failed.
import { jest } from "@jest/globals";
import { fill, type MailKind, serverTexts } from "@kikitori/shared/server";
import { type ParsedMail, simpleParser } from "mailparser";
import { type CapturedMail, startSmtpCatcher } from "../../../tests/support/smtp.ts";
import { runSweep } from "../src/sweep.ts";
import { addLocalCard, type BillingStack, changePlan, createUser, makeClock, startBillingStack } from "./harness.ts";

jest.setTimeout(60_000);

let s: BillingStack;
let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
const PERIOD_START = "2027-04-01T09:00:00.000Z";

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  s = await startBillingStack({ clock: makeClock("2027-04-11T10:00:00.000Z"), smtpUrl: smtp.url });
});
afterAll(async () => {
  await s?.close();
  await smtp?.close();
});

const user = (language: string) => createUser(s, { periodStart: PERIOD_START, language });
const card = (token: string, number: string) => addLocalCard(s, token, number);
const change = (token: string, body: Record<string, unknown>) => changePlan(s, token, body);

/** The parsed mails sent to one user so far, oldest first. */
async function mailsTo(uid: string, count: number): Promise<ParsedMail[]> {
  const to = `${uid}@example.com`;
  const mine = (m: CapturedMail) => m.to.includes(to);
  await smtp.waitFor(() => smtp.mails.filter(mine).length >= count);
  return Promise.all(smtp.mails.filter(mine).map((m) => simpleParser(m.raw)));
}
const subject = (lang: string, kind: MailKind, vars: Record<string, string>) =>
  fill(serverTexts(lang).mail[kind].subject, { app: "Kikitori", ...vars });

describe("plan-change e-mails", () => {
  it("a Japanese user gets the upgrade (in yen), the scheduled switch and its cancellation in Japanese", async () => {
    const ja = serverTexts("ja");
    const { uid, token } = await user("ja");
    expect(
      (await change(token, { paymentMethodId: await card(token, "4242424242424242"), selectedPlan: "standard" }))
        .status,
    ).toBe(200);
    expect((await change(token, { paymentMethodId: null, selectedPlan: "free" })).body.status).toBe("scheduled");
    expect((await change(token, { paymentMethodId: null, selectedPlan: "standard" })).body.status).toBe(
      "pending_cancelled",
    );

    const [up, scheduled, cancelled] = await mailsTo(uid, 3);
    expect(up.subject).toBe(subject("ja", "planUpgraded", { plan: ja.plans.standard }));
    // 20 of 30 days left of ¥1,980: ¥1,320, formatted for Japanese; the renewal date in Japanese.
    expect(up.text).toContain("￥1,320");
    expect(up.text).toContain("2027年5月1日");
    expect(up.text).toContain(`${s.url}/ja/upgrade-plan`);
    expect(up.html).toContain('lang="ja"');
    expect(scheduled.subject).toBe(subject("ja", "planScheduled", { date: "2027年5月1日" }));
    expect(scheduled.text).toContain(ja.plans.free);
    expect(cancelled.subject).toBe(subject("ja", "planCancelled", { plan: ja.plans.standard }));
  });

  it("at the reset: a German renewal, an Arabic scheduled switch and an English failed renewal", async () => {
    const de = await user("de");
    await change(de.token, { paymentMethodId: await card(de.token, "4242424242424242"), selectedPlan: "premium" });
    const ar = await user("ar");
    await change(ar.token, { paymentMethodId: await card(ar.token, "4242424242424242"), selectedPlan: "premium" });
    await change(ar.token, { paymentMethodId: null, selectedPlan: "standard" });
    const en = await user("en");
    await change(en.token, { paymentMethodId: await card(en.token, "4242424242424242"), selectedPlan: "standard" });
    // The saved card is gone: the renewal cannot be charged.
    await s.t.db.subscription.update({ where: { userId: en.uid }, data: { paymentMethodId: null } });

    s.clock.set("2027-05-01T09:30:00.000Z");
    await runSweep(s.t.db, s.billing, s.clock.now());

    const deMails = await mailsTo(de.uid, 2);
    const renewed = deMails[1];
    expect(renewed.subject).toBe(subject("de", "planRenewed", { plan: serverTexts("de").plans.premium }));
    expect(renewed.text).toContain("1. Juni 2027");

    const arMails = await mailsTo(ar.uid, 4);
    const kinds = arMails.map((m) => m.subject);
    expect(kinds).toContain(subject("ar", "planSwitched", { plan: serverTexts("ar").plans.standard }));
    expect(arMails.at(-1)?.html).toContain('dir="rtl"');

    const enMails = await mailsTo(en.uid, 2);
    expect(enMails[1].subject).toBe("We could not renew your Kikitori plan");
    expect(enMails[1].text).toContain("Free plan");
  });
});
