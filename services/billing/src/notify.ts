/**
 * Plan-change e-mails in the user's language: upgrade charged, switch scheduled or cancelled,
 * scheduled switch applied, renewal charged, renewal failed. A mail that cannot be sent is logged
 * and never undoes or blocks the billing change it reports.
 */
import type { Language, PlanName } from "@kikitori/shared";
import { normalizeLanguage, pageUrl } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  formatLongDate,
  formatMoney,
  type Logger,
  type Mailer,
  renderMail,
  serverTexts,
} from "@kikitori/shared/server";
import { toMajor } from "./pricing.ts";

export type PlanEvent =
  | { kind: "planUpgraded"; uid: string; plan: PlanName; amountMinor: number; currency: string; renewsOn: Date }
  | { kind: "planScheduled"; uid: string; from: PlanName; to: PlanName; on: Date }
  | { kind: "planCancelled"; uid: string; plan: PlanName }
  | { kind: "planSwitched"; uid: string; plan: PlanName; nextReset: Date }
  | { kind: "planRenewed"; uid: string; plan: PlanName; amountMinor: number; currency: string; nextRenewal: Date }
  | { kind: "renewalFailed"; uid: string; plan: PlanName };

export type PlanNotifier = (event: PlanEvent) => Promise<void>;

/** The texts' placeholders for one event, formatted for the language. */
export function mailVars(event: PlanEvent, lang: Language): Record<string, string> {
  const plan = (p: PlanName) => serverTexts(lang).plans[p];
  switch (event.kind) {
    case "planUpgraded":
      return {
        plan: plan(event.plan),
        amount: formatMoney(lang, toMajor(event.amountMinor, event.currency), event.currency),
        date: formatLongDate(lang, event.renewsOn),
      };
    case "planScheduled":
      return { from: plan(event.from), to: plan(event.to), date: formatLongDate(lang, event.on) };
    case "planCancelled":
    case "renewalFailed":
      return { plan: plan(event.plan) };
    case "planSwitched":
      return { plan: plan(event.plan), date: formatLongDate(lang, event.nextReset) };
    case "planRenewed":
      return {
        plan: plan(event.plan),
        amount: formatMoney(lang, toMajor(event.amountMinor, event.currency), event.currency),
        date: formatLongDate(lang, event.nextRenewal),
      };
  }
}

export function createPlanNotifier(deps: {
  db: Db;
  mailer: Mailer;
  logger: Logger;
  appName: string;
  publicUrl: string;
}): PlanNotifier {
  return async (event) => {
    try {
      const user = await deps.db.user.findUnique({ where: { id: event.uid }, select: { email: true, language: true } });
      if (!user) return;
      const lang = normalizeLanguage(user.language);
      const link = pageUrl(deps.publicUrl, lang, "upgradePlan");
      const mail = renderMail(event.kind, lang, { app: deps.appName, link, ...mailVars(event, lang) });
      await deps.mailer.send({ to: user.email, ...mail, link });
    } catch (err) {
      deps.logger.warn({ err, uid: event.uid, kind: event.kind }, "plan-change mail not sent");
    }
  };
}
