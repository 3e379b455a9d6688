// The merchant agreement: a versioned text, signed by the merchant over the API (who, when, from which
// address, which version's SHA-256). Publishing a new version opens a 30-day re-sign window for every
// merchant that signed an older one (`agreement.resign_requested`); once it ends, live money stops
// (domain/merchants/live_gate.ts) until the merchant signs again (`agreement.resigned`).
import * as db from "../../db/agreements.ts";
import { findMerchant } from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { audited } from "../audit/audited.ts";
import type { Actor } from "../operators/roles.ts";
import { keyCacheOf } from "../keys/key_cache.ts";
import { sha256Hex } from "../crypto.ts";
import { emitEvent } from "../webhooks/events.ts";
import { RESIGN_WINDOW_DAYS } from "../merchants/live_gate.ts";

type AgreementDeps = Pick<Deps, "db" | "queue" | "clock" | "keyCache">;

export function agreementView(a: db.AgreementRow) {
  return { version: a.version, sha256: a.sha256, body: a.body, publishedAt: a.published_at.toISOString() };
}

/** The current text, and where the merchant stands with it. */
export async function agreementStatusOf(deps: Pick<Deps, "db" | "clock">, merchantId: string) {
  const current = await db.currentAgreement(deps.db);
  const signatures = await db.signaturesOf(deps.db, merchantId);
  const merchant = await findMerchant(deps.db, merchantId);
  if (!merchant) throw new AppError("MERCHANT_NOT_FOUND");
  const signedVersion = signatures[0]?.version ?? null;
  const resignBy = merchant?.agreement_resign_by ?? null;
  const state = signedVersion === current.version
    ? "SIGNED"
    : signedVersion === null
    ? "NOT_SIGNED"
    : resignBy && deps.clock.now().getTime() < resignBy.getTime()
    ? "RESIGN_REQUESTED"
    : "RESIGN_OVERDUE";
  return {
    current: agreementView(current),
    state,
    signedVersion,
    resignBy: resignBy ? resignBy.toISOString() : null,
    signatures: signatures.map((s) => ({
      version: s.version,
      sha256: s.sha256,
      signedAt: s.signed_at.toISOString(),
      signedFrom: s.signed_from,
      signedBy: s.signed_by,
    })),
  };
}

/**
 * Signs the current version. The caller names the version and its SHA-256 (what it showed the signer):
 * a text published meanwhile answers CONFLICT, never a signature of words nobody read. Signing twice is
 * harmless (the first signature stands).
 */
export async function signAgreement(
  deps: AgreementDeps,
  input: { merchantId: string; version: number; sha256: string; signedBy: string; signedFrom: string },
) {
  await deps.db.tx(async (tx) => {
    const current = await db.currentAgreement(tx, true);
    if (input.version !== current.version || input.sha256.toLowerCase() !== current.sha256) {
      throw new AppError(
        "CONFLICT",
        `Sign the current merchant agreement: version ${current.version}, sha256 ${current.sha256}`,
      );
    }
    const before = await db.lockMerchantAgreement(tx, input.merchantId);
    if (!before) throw new AppError("MERCHANT_NOT_FOUND");
    const now = deps.clock.now();
    const isNew = await db.insertSignature(tx, {
      merchant_id: input.merchantId,
      version: current.version,
      sha256: current.sha256,
      signed_at: now,
      signed_from: input.signedFrom.slice(0, 100),
      signed_by: input.signedBy.slice(0, 200),
    });
    if (!isNew || before.agreement_version === current.version) return;
    await db.markSigned(tx, input.merchantId, current.version);
    tx.afterCommit(() => keyCacheOf(deps).forgetMerchant(input.merchantId));
    if (before.agreement_version !== null) {
      await emitEvent({ ...deps, db: tx }, {
        merchantId: input.merchantId,
        isSandbox: false,
        type: "agreement.resigned",
        data: {
          merchantId: input.merchantId,
          agreementVersion: current.version,
          sha256: current.sha256,
          previousVersion: before.agreement_version,
          signedAt: now.toISOString(),
          signedBy: input.signedBy,
        },
      });
    }
  });
  return await agreementStatusOf(deps, input.merchantId);
}

/** Signs whatever version is current (the demo merchant of a development server, test fixtures). */
export async function signCurrentAgreement(
  deps: AgreementDeps,
  input: { merchantId: string; signedBy: string; signedFrom: string },
) {
  const current = await db.currentAgreement(deps.db);
  return await signAgreement(deps, { ...input, version: current.version, sha256: current.sha256 });
}

/** An operator publishes a new version; merchants on an older one get 30 days to sign it. */
export async function publishAgreement(
  deps: AgreementDeps,
  actor: Actor,
  input: { body: string },
) {
  const body = input.body.trim();
  if (body.length < 20) {
    throw new AppError("VALIDATION_ERROR", "The agreement text is too short", {
      details: [{ field: "body", reason: "at least 20 characters" }],
    });
  }
  const sha256 = await sha256Hex(body);
  return await audited(deps, actor, { action: "agreement.publish", itemType: "agreement" }, async (tx) => {
    await db.lockAgreements(tx);
    const previous = await db.currentAgreement(tx);
    if (previous.sha256 === sha256) {
      throw new AppError("CONFLICT", `This text is already version ${previous.version}`);
    }
    const now = deps.clock.now();
    const row = { version: previous.version + 1, body, sha256, published_at: now, published_by: actor.label };
    await db.insertAgreement(tx, row);
    const deadline = new Date(now.getTime() + RESIGN_WINDOW_DAYS * 86_400_000);
    const asked = await db.requestResign(tx, row.version, deadline);
    for (const m of asked) {
      await emitEvent({ ...deps, db: tx }, {
        merchantId: m.id,
        isSandbox: false,
        type: "agreement.resign_requested",
        data: {
          merchantId: m.id,
          agreementVersion: row.version,
          sha256,
          deadline: m.agreement_resign_by.toISOString(),
          publishedAt: now.toISOString(),
        },
      });
    }
    return {
      result: {
        agreement: agreementView(row),
        resignRequested: asked.length,
        deadline: deadline.toISOString(),
      },
      itemId: `v${row.version}`,
      after: { version: row.version, sha256, resignRequested: asked.length },
    };
  });
}
