import { describe, expect, it } from "@jest/globals";
import { RTL_LANGUAGES, SUPPORTED_LANGUAGES } from "../src/languages.ts";
import {
  formatDuration,
  formatLongDate,
  formatMoney,
  type MailKind,
  serverTexts,
  speakerLabels,
} from "../src/server/i18n/index.ts";
import { renderMail } from "../src/server/mail.ts";

const KINDS: MailKind[] = [
  "verify",
  "reset",
  "planUpgraded",
  "planScheduled",
  "planCancelled",
  "planRenewed",
  "planSwitched",
  "renewalFailed",
  "emailChange",
  "accountDeleted",
];
const vars = {
  app: "Kikitori",
  link: "https://k.example/x?token=a&b=<c>",
  duration: "24 h",
  plan: "P",
  from: "F",
  to: "T",
  amount: "$1",
  date: "D",
  email: "new@example.com",
};

describe("e-mails in every language", () => {
  it.each(SUPPORTED_LANGUAGES)("%s: every mail renders with all placeholders filled", (lang) => {
    for (const kind of KINDS) {
      const mail = renderMail(kind, lang, vars);
      for (const part of [mail.subject, mail.text, mail.html])
        expect([kind, part.includes("{{")]).toEqual([kind, false]);
      expect(mail.subject.length).toBeGreaterThan(0);
      expect(mail.text).toContain(vars.link);
      expect(mail.html).toContain(`lang="${lang}"`);
      expect(mail.html).toContain(`dir="${RTL_LANGUAGES.includes(lang) ? "rtl" : "ltr"}"`);
      // The link is escaped in HTML.
      expect(mail.html).toContain("token=a&amp;b=&lt;c&gt;");
      if (lang !== "en") expect([kind, mail.subject]).not.toEqual([kind, renderMail(kind, "en", vars).subject]);
    }
  });

  it("falls back to English for an unknown language tag and normalises regional tags", () => {
    expect(serverTexts("xx").mail.verify.subject).toBe(serverTexts("en").mail.verify.subject);
    expect(speakerLabels("ja-JP")).toEqual(serverTexts("ja").speakers);
  });

  it("formats durations, money and dates with the language's own plural forms and conventions", () => {
    expect(formatDuration("en", 1, "hour")).toBe("1 hour");
    expect(formatDuration("en", 48, "hour")).toBe("48 hours");
    expect(formatDuration("ru", 24, "hour")).toBe("24 часа");
    expect(formatDuration("ru", 48, "hour")).toBe("48 часов");
    expect(formatDuration("pl", 60, "minute")).toBe("60 minut");
    expect(formatDuration("ja", 60, "minute")).toBe("60 分");
    expect(formatMoney("en", 15, "USD")).toBe("$15.00");
    expect(formatMoney("ja", 1980, "JPY")).toBe("￥1,980");
    expect(formatLongDate("de", new Date("2026-12-05T00:00:00Z"))).toBe("5. Dezember 2026");
  });
});
