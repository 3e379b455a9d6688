// The outbox side of the mail seam: `queueMail` writes a message in the caller's transaction (so an
// e-mail exists exactly when what it reports committed) and queues its sending after the commit;
// `sendQueuedMail` hands it to the transport once (a lease per attempt, at most MAX_MAIL_ATTEMPTS).
import * as mailDb from "../../db/mail_outbox.ts";
import { outboxTransport } from "../../rails/mail/mod.ts";
import type { Deps } from "../deps.ts";
import { newId } from "../ids.ts";

export const MAX_MAIL_ATTEMPTS = 5;
const LEASE_MS = 60_000;
const DEFAULT_FROM = "Paiements <no-reply@localhost>";

export type OutgoingMail = {
  merchantId: string | null;
  isSandbox: boolean;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  /** What it is about (`subscription.renewal`...) and the record it names, for operators. */
  kind: string;
  refId?: string | null;
};

export async function queueMail(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  m: OutgoingMail,
): Promise<string> {
  const now = deps.clock.now();
  const id = newId("eml", now.getTime());
  await mailDb.insertMail(deps.db, {
    id,
    merchant_id: m.merchantId,
    is_sandbox: m.isSandbox,
    to_address: m.to,
    subject: m.subject,
    text_body: m.text,
    html_body: m.html ?? null,
    kind: m.kind,
    ref_id: m.refId ?? null,
  }, now);
  deps.db.afterCommit(() => deps.queue.enqueue({ type: "mail.send", mailId: id }));
  return id;
}

/** Sends one queued message; a repeated or late call finds it sent (or leased) and does nothing. */
export async function sendQueuedMail(
  deps: Pick<Deps, "db" | "clock" | "config" | "log" | "mail">,
  mailId: string,
): Promise<"sent" | "skipped" | "retry" | "failed"> {
  const row = await mailDb.claimMail(deps.db, mailId, deps.clock.now(), LEASE_MS);
  if (!row) return "skipped";
  const transport = deps.mail ?? outboxTransport();
  try {
    await transport.send({
      id: row.id,
      from: deps.config.mail?.from ?? DEFAULT_FROM,
      to: row.to_address,
      subject: row.subject,
      text: row.text_body,
      html: row.html_body,
    });
  } catch (err) {
    const final = row.attempts >= MAX_MAIL_ATTEMPTS;
    await mailDb.markMailError(deps.db, row.id, String(err), final);
    deps.log.warn("mail not sent", { mailId: row.id, kind: row.kind, attempts: row.attempts, final });
    return final ? "failed" : "retry";
  }
  await mailDb.markMailSent(deps.db, row.id, deps.clock.now());
  return "sent";
}

/** The safety net: messages whose queue message was lost are sent by the cron. */
export async function sendPendingMail(deps: Pick<Deps, "db" | "clock" | "config" | "log" | "mail">) {
  const ids = await mailDb.listPendingMail(deps.db, deps.clock.now(), 100);
  for (const id of ids) await sendQueuedMail(deps, id);
  return ids.length;
}

/** The operator's (and development's) view of the outbox, newest first. */
export async function readOutbox(deps: Pick<Deps, "db">, q: { to?: string; refId?: string; limit?: number }) {
  const rows = await mailDb.listMail(deps.db, { ...q, limit: q.limit ?? 50 });
  return rows.map((r) => ({
    id: r.id,
    to: r.to_address,
    subject: r.subject,
    text: r.text_body,
    kind: r.kind,
    refId: r.ref_id,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    isSandbox: r.is_sandbox,
    sentAt: r.sent_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
  }));
}
