// The mail seam's outbox: a message exists only if its transaction committed, is handed to the transport
// once (a repeated message finds it sent), is retried when the transport fails, and is FAILED after the
// fifth failure. The SMTP transport itself is never exercised here (no outside host).
import { MAX_MAIL_ATTEMPTS, queueMail, sendPendingMail, sendQueuedMail } from "../../domain/mail/outbox.ts";
import { manualClock } from "../../domain/clock.ts";
import type { MailMessage, MailTransport } from "../../rails/mail/mod.ts";
import { assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";

const clock = manualClock(new Date("2026-05-01T00:00:00.000Z"));

Deno.test(
  "mail outbox: written with its transaction, sent once, retried, failed after the last attempt",
  withGateway(async (gw) => {
    const sent: MailMessage[] = [];
    let failing = false;
    const transport: MailTransport = {
      name: "smtp",
      send(m) {
        if (failing) return Promise.reject(new Error("421 try later"));
        sent.push(m);
        return Promise.resolve();
      },
    };
    const deps = { ...gw.deps, mail: transport };
    const mail = {
      merchantId: null,
      isSandbox: true,
      to: "awa@example.com",
      subject: "S",
      text: "T",
      kind: "test",
    };
    // Rolled back with its transaction: no message.
    await gw.db.tx(async (tx) => {
      await queueMail({ ...deps, db: tx }, mail);
      throw new Error("rollback");
    }).catch(() => {});
    assertEquals((await gw.db.query("SELECT id FROM mail_outbox")).length, 0);
    const id = await queueMail(deps, mail);
    assertEquals(await sendQueuedMail(deps, id), "sent");
    assertEquals(await sendQueuedMail(deps, id), "skipped");
    assertEquals(sent.length, 1);
    assertEquals(sent[0].to, "awa@example.com");
    assertEquals(sent[0].from, "Paiements <no-reply@localhost>");

    failing = true;
    const other = await queueMail(deps, { ...mail, to: "binta@example.com" });
    for (let attempt = 1; attempt < MAX_MAIL_ATTEMPTS; attempt++) {
      assertEquals(await sendQueuedMail(deps, other), "retry");
    }
    assertEquals(await sendQueuedMail(deps, other), "failed");
    assertEquals(await sendPendingMail(deps), 0);
    const [row] = await gw.db.query<{ status: string; attempts: number; last_error: string }>(
      "SELECT status, attempts, last_error FROM mail_outbox WHERE id = $1",
      [other],
    );
    assertEquals([row.status, row.attempts], ["FAILED", MAX_MAIL_ATTEMPTS]);
    assertEquals(row.last_error.includes("421"), true);

    // A message whose queue message was lost is sent by the sweep.
    failing = false;
    await queueMail(deps, { ...mail, to: "chantal@example.com" });
    assertEquals(await sendPendingMail(deps), 1);
    assertEquals(sent.map((m) => m.to), ["awa@example.com", "chantal@example.com"]);
  }, { clock }),
);
