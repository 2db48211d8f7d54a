import type { Language } from "@kikitori/shared";

/**
 * E-mail texts per language. English and Japanese are written; other languages fall back to English
 * until their translations land (see the languages issue).
 */
type MailKind = "verify" | "reset";
interface MailText {
  subject: string;
  greeting: string;
  body: string;
  button: string;
  expiry: string;
  ignore: string;
}

const TEXTS: Partial<Record<Language, Record<MailKind, MailText>>> = {
  en: {
    verify: {
      subject: "Confirm your e-mail address for {app}",
      greeting: "Welcome to {app}!",
      body: "Please confirm your e-mail address to finish creating your account.",
      button: "Confirm e-mail address",
      expiry: "This link expires in {hours} hours.",
      ignore: "If you did not create an account, you can ignore this e-mail.",
    },
    reset: {
      subject: "Reset your {app} password",
      greeting: "Hello,",
      body: "We received a request to reset the password of your {app} account.",
      button: "Choose a new password",
      expiry: "This link expires in {minutes} minutes and can be used once.",
      ignore: "If you did not ask for this, ignore this e-mail: your password stays the same.",
    },
  },
  ja: {
    verify: {
      subject: "{app} メールアドレスの確認",
      greeting: "{app} へようこそ！",
      body: "アカウント作成を完了するため、メールアドレスを確認してください。",
      button: "メールアドレスを確認する",
      expiry: "このリンクの有効期限は {hours} 時間です。",
      ignore: "お心当たりのない場合は、このメールを破棄してください。",
    },
    reset: {
      subject: "{app} パスワードの再設定",
      greeting: "こんにちは。",
      body: "{app} アカウントのパスワード再設定のリクエストを受け付けました。",
      button: "新しいパスワードを設定する",
      expiry: "このリンクの有効期限は {minutes} 分で、一度だけ使えます。",
      ignore: "お心当たりのない場合は、このメールを破棄してください。パスワードは変更されません。",
    },
  },
};

const fill = (s: string, vars: Record<string, string | number>) =>
  s.replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? `{${k}}`));

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function renderMail(
  kind: MailKind,
  language: Language,
  vars: { app: string; link: string; hours?: number; minutes?: number },
): { subject: string; text: string; html: string } {
  const t = (TEXTS[language] ?? TEXTS.en!)[kind];
  const v = { app: vars.app, hours: vars.hours ?? 0, minutes: vars.minutes ?? 0 };
  const lines = [fill(t.greeting, v), "", fill(t.body, v), "", vars.link, "", fill(t.expiry, v), fill(t.ignore, v)];
  const html = `<!doctype html><html lang="${language}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937">
<p>${escapeHtml(fill(t.greeting, v))}</p>
<p>${escapeHtml(fill(t.body, v))}</p>
<p><a href="${escapeHtml(vars.link)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(fill(t.button, v))}</a></p>
<p style="font-size:13px;color:#6b7280">${escapeHtml(vars.link)}</p>
<p style="font-size:13px;color:#6b7280">${escapeHtml(fill(t.expiry, v))}<br>${escapeHtml(fill(t.ignore, v))}</p>
</body></html>`;
  return { subject: fill(t.subject, v), text: lines.join("\n"), html };
}
