import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { escapeHtml } from "../html.ts";
import { type Language, RTL_LANGUAGES } from "../languages.ts";
import { fill, type MailKind, serverTexts } from "./i18n/index.ts";
import type { Logger } from "./logger.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The one link the mail is about; logged by the file adapter so a fresh machine can follow it. */
  link?: string;
}

/** The mail port: SMTP when SMTP_URL is set, else .eml files in MAIL_DIR (gateway and billing). */
export interface Mailer {
  send(msg: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;
  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
  }
  async send(msg: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: msg.to,
      subject: msg.subject,
      text: msg.text,
      html: msg.html,
    });
  }
  async close(): Promise<void> {
    this.transport.close();
  }
}

export class FileMailer implements Mailer {
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  constructor(
    private readonly dir: string,
    private readonly from: string,
    private readonly logger: Logger,
  ) {}
  async send(msg: MailMessage): Promise<void> {
    const info = await this.transport.sendMail({
      from: this.from,
      to: msg.to,
      subject: msg.subject,
      text: msg.text,
      html: msg.html,
    });
    // The outbox holds reset and verification links: the owner's only (0700 folder, 0600 files).
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const safeTo = msg.to.replace(/[^a-zA-Z0-9@._-]/g, "_");
    const file = path.join(this.dir, `${stamp}-${safeTo}.eml`);
    await writeFile(file, info.message as Buffer, { mode: 0o600 });
    await chmod(file, 0o600);
    this.logger.info({ file, to: msg.to, subject: msg.subject, link: msg.link }, "mail written to file (no SMTP_URL)");
  }
  async close(): Promise<void> {}
}

export function createMailer(cfg: { SMTP_URL?: string; MAIL_FROM: string; MAIL_DIR: string }, logger: Logger): Mailer {
  return cfg.SMTP_URL
    ? new SmtpMailer(cfg.SMTP_URL, cfg.MAIL_FROM)
    : new FileMailer(cfg.MAIL_DIR, cfg.MAIL_FROM, logger);
}

/**
 * One e-mail in the user's language: greeting, body, a button with the link, a note and the footer.
 * `vars` fills the {{placeholders}} of the texts; values arrive already formatted (dates, prices).
 */
export function renderMail(
  kind: MailKind,
  language: Language,
  vars: { app: string; link: string } & Record<string, string | number>,
): { subject: string; text: string; html: string } {
  const texts = serverTexts(language).mail;
  const t = texts[kind];
  const f = (s: string) => fill(s, vars);
  const [greeting, body, button, note, footer] = [t.greeting, t.body, t.button, t.note, texts.footer].map(f);
  const text = [greeting, "", body, "", `${button}: ${vars.link}`, "", note, "", "--", footer].join("\n");
  const dir = RTL_LANGUAGES.includes(language) ? "rtl" : "ltr";
  const html = `<!doctype html><html lang="${language}" dir="${dir}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(body)}</p>
<p><a href="${escapeHtml(vars.link)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(button)}</a></p>
<p style="font-size:13px;color:#6b7280">${escapeHtml(vars.link)}</p>
<p style="font-size:13px;color:#6b7280">${escapeHtml(note)}</p>
<hr style="border:none;border-top:1px solid #e5e7eb">
<p style="font-size:12px;color:#9ca3af">${escapeHtml(footer)}</p>
</body></html>`;
  return { subject: f(t.subject), text, html };
}
