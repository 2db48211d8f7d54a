import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@kikitori/shared/server";
import nodemailer, { type Transporter } from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The one link the mail is about; logged by the file adapter so a fresh machine can follow it. */
  link?: string;
}

/** The mail port: SMTP when SMTP_URL is set, else .eml files in MAIL_DIR. */
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
    await mkdir(this.dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const safeTo = msg.to.replace(/[^a-zA-Z0-9@._-]/g, "_");
    const file = path.join(this.dir, `${stamp}-${safeTo}.eml`);
    await writeFile(file, info.message as Buffer);
    this.logger.info({ file, to: msg.to, subject: msg.subject, link: msg.link }, "mail written to file (no SMTP_URL)");
  }
  async close(): Promise<void> {}
}

export function createMailer(cfg: { SMTP_URL?: string; MAIL_FROM: string; MAIL_DIR: string }, logger: Logger): Mailer {
  return cfg.SMTP_URL
    ? new SmtpMailer(cfg.SMTP_URL, cfg.MAIL_FROM)
    : new FileMailer(cfg.MAIL_DIR, cfg.MAIL_FROM, logger);
}
