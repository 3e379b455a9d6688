// Compliance threads on a KYB review: an operator asks (`kyb.thread.created`), either side replies
// (`kyb.thread.replied`, with `author` MERCHANT or ADMIN), an operator resolves or dismisses it. A thread
// is OPEN until then; a closed thread takes no reply (INVALID_STATE). Operator steps are audited.
import * as db from "../../db/kyb.ts";
import { findMerchant } from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { audited } from "../audit/audited.ts";
import type { Actor } from "../operators/roles.ts";
import { emitEvent } from "../webhooks/events.ts";
import { threadView } from "./view.ts";

type ThreadDeps = Pick<Deps, "db" | "queue" | "clock">;
type Author = "MERCHANT" | "ADMIN";

/** Thread messages: plain text, at most this long (NUL bytes and lone surrogates never reach here). */
export const MAX_MESSAGE_CHARS = 4000;

function cleanMessage(text: string): string {
  const body = text.trim();
  if (!body || body.length > MAX_MESSAGE_CHARS) {
    throw new AppError("VALIDATION_ERROR", `A message is 1 to ${MAX_MESSAGE_CHARS} characters`, {
      details: [{ field: "message", reason: `1 to ${MAX_MESSAGE_CHARS} characters` }],
    });
  }
  return body;
}

async function threadOf(deps: Pick<Deps, "db">, threadId: string) {
  const all = await db.listThreads(deps.db, (await db.findThread(deps.db, threadId))!.merchant_id);
  return threadView(all.find((t) => t.id === threadId)!);
}

function eventData(t: db.KybThreadRow, extra: Record<string, unknown>) {
  return { threadId: t.id, merchantId: t.merchant_id, status: t.status, ...extra };
}

export async function openThread(
  deps: ThreadDeps,
  actor: Actor,
  input: { merchantId: string; message: string },
) {
  const message = cleanMessage(input.message);
  if (!await findMerchant(deps.db, input.merchantId)) throw new AppError("MERCHANT_NOT_FOUND");
  const id = newId("kth", deps.clock.now().getTime());
  const what = { action: "kyb.thread.create", itemType: "kyb_thread", itemId: id };
  await audited(deps, actor, what, async (tx) => {
    const now = deps.clock.now();
    const row: db.KybThreadRow = {
      id,
      merchant_id: input.merchantId,
      status: "OPEN",
      created_by: actor.label,
      created_at: now,
      closed_at: null,
      closed_by: null,
    };
    await db.insertThread(tx, row);
    await db.insertMessage(tx, {
      id: newId("kym", now.getTime()),
      thread_id: id,
      author: "ADMIN",
      author_name: actor.label,
      body: message,
      created_at: now,
    });
    await emitEvent({ ...deps, db: tx }, {
      merchantId: input.merchantId,
      isSandbox: false,
      type: "kyb.thread.created",
      data: eventData(row, { author: "ADMIN", message, createdAt: now.toISOString() }),
    });
    return { result: null, after: { merchantId: input.merchantId, message } };
  });
  return await threadOf(deps, id);
}

/**
 * A reply. `merchantId` set: the merchant replies and must own the thread (another merchant's thread is
 * NOT_FOUND); unset: an operator replies (audited by the caller's wrapper below).
 */
async function reply(
  deps: ThreadDeps,
  tx: ThreadDeps["db"],
  input: { threadId: string; merchantId?: string; author: Author; authorName: string; message: string },
) {
  const message = cleanMessage(input.message);
  const thread = await db.lockThread(tx, input.threadId);
  if (!thread || (input.merchantId && thread.merchant_id !== input.merchantId)) {
    throw new AppError("NOT_FOUND", "No such KYB thread");
  }
  if (thread.status !== "OPEN") {
    throw new AppError("INVALID_STATE", `The thread is ${thread.status}: it takes no reply`);
  }
  const now = deps.clock.now();
  await db.insertMessage(tx, {
    id: newId("kym", now.getTime()),
    thread_id: thread.id,
    author: input.author,
    author_name: input.authorName,
    body: message,
    created_at: now,
  });
  await emitEvent({ ...deps, db: tx }, {
    merchantId: thread.merchant_id,
    isSandbox: false,
    type: "kyb.thread.replied",
    data: eventData(thread, { author: input.author, message, createdAt: now.toISOString() }),
  });
  return thread;
}

export async function merchantReply(
  deps: ThreadDeps,
  input: { merchantId: string; threadId: string; message: string; keyId: string },
) {
  await deps.db.tx((tx) =>
    reply(deps, tx, { ...input, author: "MERCHANT", authorName: `api key ${input.keyId}` })
  );
  return await threadOf(deps, input.threadId);
}

export async function operatorReply(
  deps: ThreadDeps,
  actor: Actor,
  input: { threadId: string; message: string },
) {
  const what = { action: "kyb.thread.reply", itemType: "kyb_thread", itemId: input.threadId };
  await audited(deps, actor, what, async (tx) => {
    await reply(deps, tx, { ...input, author: "ADMIN", authorName: actor.label });
    return { result: null, after: { message: input.message.trim() } };
  });
  return await threadOf(deps, input.threadId);
}

/** OPEN -> RESOLVED or DISMISSED, by an operator (`note`: why, for the audit trail). */
export async function closeKybThread(
  deps: ThreadDeps,
  actor: Actor,
  input: { threadId: string; outcome: "RESOLVED" | "DISMISSED"; note?: string },
) {
  const action = input.outcome === "RESOLVED" ? "kyb.thread.resolve" : "kyb.thread.dismiss";
  // The console asks why (kept in the audit record); the API may close without a word.
  const what = { action, itemType: "kyb_thread", itemId: input.threadId, note: input.note?.trim() || null };
  await audited(deps, actor, what, async (tx) => {
    const thread = await db.lockThread(tx, input.threadId);
    if (!thread) throw new AppError("NOT_FOUND", "No such KYB thread");
    if (thread.status !== "OPEN") {
      throw new AppError("INVALID_STATE", `The thread is already ${thread.status}`);
    }
    const now = deps.clock.now();
    const closed = await db.closeThread(tx, thread.id, input.outcome, actor.label, now);
    await emitEvent({ ...deps, db: tx }, {
      merchantId: thread.merchant_id,
      isSandbox: false,
      type: input.outcome === "RESOLVED" ? "kyb.thread.resolved" : "kyb.thread.dismissed",
      data: eventData(closed, { closedBy: "ADMIN", closedAt: now.toISOString() }),
    });
    return { result: null, before: { status: "OPEN" }, after: { status: input.outcome } };
  });
  return await threadOf(deps, input.threadId);
}
