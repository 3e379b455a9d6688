// The mail seam: how a message written to the outbox (Postgres, migration 021) leaves the machine.
// Development's transport delivers nowhere: the outbox rows are the mailbox that tests and operators
// read (GET /admin/api/mail-outbox). Production sends through SMTP (MAIL_TRANSPORT=smtp, SMTP_URL).
import type { Config } from "../../config.ts";

export type MailMessage = {
  to: string;
  from: string;
  subject: string;
  text: string;
  html?: string | null;
  /** Our outbox id, sent as Message-ID's left part so a resend is recognisable. */
  id: string;
};

export interface MailTransport {
  /** `outbox` (development: nothing leaves) or `smtp`. */
  readonly name: "outbox" | "smtp";
  /** Resolves once the message is accepted; throws when it was not (the outbox retries). */
  send(message: MailMessage): Promise<void>;
}

/** Development: accepting a message is recording it, which the outbox row already does. */
export function outboxTransport(): MailTransport {
  return { name: "outbox", send: () => Promise.resolve() };
}

/**
 * SMTP through nodemailer, loaded only when this transport is chosen. `smtp://user:pass@host:587`
 * (STARTTLS required) or `smtps://user:pass@host:465`.
 */
export function smtpTransport(url: string): MailTransport {
  // deno-lint-ignore no-explicit-any
  let transporter: Promise<any> | undefined;
  const open = () =>
    transporter ??= import("nodemailer").then((m) =>
      m.default.createTransport({ url, requireTLS: url.startsWith("smtp://"), connectionTimeout: 10_000 })
    );
  return {
    name: "smtp",
    async send(message) {
      const t = await open();
      const host = new URL(url).hostname;
      await t.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html ?? undefined,
        messageId: `<${message.id}@${host}>`,
      });
    },
  };
}

export function openMailTransport(config: Pick<Config, "mail">): MailTransport {
  return config.mail?.transport === "smtp" && config.mail.smtpUrl
    ? smtpTransport(config.mail.smtpUrl)
    : outboxTransport();
}
