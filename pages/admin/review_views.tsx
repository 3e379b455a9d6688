// The review screens' shared parts (the page around them, ledger entries, the audit trail; the story's
// header and decision form are in story_parts.tsx) and the refunds screens: the list of refunds awaiting approval and one refund's story.
import type { ComponentChildren } from "preact";
import type { AuditRecord } from "../../domain/audit/trail.ts";
import type { RefundRow } from "../../db/refunds.ts";
import type { JournalEntryRow } from "../../db/operator_views.ts";
import type { RefundStory } from "../../domain/operators/review_stories.ts";
import type { Lang } from "../i18n.ts";
import { adminWords } from "./i18n.ts";
import { reviewWords } from "./review_i18n.ts";
import { type Frame, Header, shell } from "./views.tsx";
import { NextPage } from "./pager.tsx";
import { DecisionForm, StoryHeader } from "./story_parts.tsx";

export type Shown = { error?: string; notice?: string };

/** The page around a review screen: header, a way back, the answer of the last post. */
export function reviewPage(p: Frame & Shown & { title: string; back?: string }, body: ComponentChildren) {
  const t = adminWords(p.lang);
  return shell(
    p.lang,
    p.nonce,
    `${p.title} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <p>
          <a href={p.back ?? `/admin/queue?lang=${p.lang}`}>{p.back ? reviewWords(p.lang).backTo : t.back}</a>
        </p>
        {p.error && <p class="err" role="alert" id="answer">{p.error}</p>}
        {p.notice && <p class="ok" role="status" id="answer">{p.notice}</p>}
        {body}
      </main>
    </>,
  );
}

export function Entries(p: { lang: Lang; entries: JournalEntryRow[] }) {
  const t = adminWords(p.lang);
  return (
    <div class="card scroll" id="ledger">
      <h2>{t.ledger}</h2>
      {p.entries.length === 0 ? <p>{t.nothing}</p> : (
        <table>
          <tbody>
            {p.entries.map((e) => (
              <tr>
                <td>
                  <span class="mono">{e.reference}</span>
                  <div class="muted">{e.kind} · {e.created_at.toISOString()}</div>
                </td>
                <td>
                  <span class="mono">{e.account_id}</span>
                  <div class="muted">{e.account_kind}</div>
                </td>
                <td class="mono amt">{e.amount} {e.currency}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function Trail(p: { lang: Lang; audit: AuditRecord[] }) {
  const t = adminWords(p.lang);
  return (
    <div class="card scroll" id="trail">
      <h2>{t.trail}</h2>
      {p.audit.length === 0 ? <p>{t.nothing}</p> : (
        <table>
          <tbody>
            {p.audit.map((a) => (
              <tr>
                <td>
                  #{a.seq} {a.action}
                  <div class="muted">{a.actor.label} ({a.actor.role}) · {a.at}</div>
                </td>
                <td>{a.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function renderRefunds(
  p: Frame & Shown & { rows: RefundRow[]; next: string | null; paged: boolean },
): string {
  const t = adminWords(p.lang);
  const r = reviewWords(p.lang);
  return reviewPage(
    { ...p, title: t.refundsAwaitingApproval },
    <div class="card scroll">
      <h1>{t.refundsAwaitingApproval}</h1>
      {p.rows.length === 0 ? <p>{r.nothingToDecide}</p> : (
        <table id="refunds">
          <thead>
            <tr>
              <th>{r.refund}</th>
              <th>{t.merchant}</th>
              <th>{t.amount}</th>
              <th>{t.created}</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((row) => (
              <tr>
                <td>
                  <a class="mono" href={`/admin/refunds/${row.id}?lang=${p.lang}`}>{row.id}</a>
                  <div class="muted">{row.payment_method}{row.first_approved_by ? " · 1/2" : ""}</div>
                </td>
                <td class="mono">{row.merchant_id}</td>
                <td>{row.amount} {row.currency}</td>
                <td class="muted">{row.created_at.toISOString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPage lang={p.lang} base="/admin/refunds" next={p.next} paged={p.paged} />
    </div>,
  );
}

export function renderRefund(p: Frame & Shown & { story: RefundStory; canDecide: boolean }): string {
  const t = adminWords(p.lang);
  const r = reviewWords(p.lang);
  const { refund, merchant, approvals } = p.story;
  const waiting = refund.status === "PENDING_APPROVAL";
  return reviewPage(
    { ...p, title: refund.id, back: `/admin/refunds?lang=${p.lang}` },
    <>
      <StoryHeader
        lang={p.lang}
        title={refund.id}
        mono
        statusId="refund-status"
        status={refund.status}
        sandbox={refund.is_sandbox}
        merchant={merchant}
        after={waiting && approvals.needed === 2 && <p class="muted">{r.fourEyes}</p>}
      >
        <dt>{r.payin}</dt>
        <dd class="mono">{refund.payin_id}</dd>
        <dt>{t.amount}</dt>
        <dd>{refund.amount} {refund.currency}</dd>
        <dt>{r.rail}</dt>
        <dd>{refund.payment_method} · {refund.wallet_rail}</dd>
        <dt>{r.reason}</dt>
        <dd>{refund.reason ?? r.noReason}</dd>
        <dt>{t.created}</dt>
        <dd>{refund.created_at.toISOString()}</dd>
        {refund.reviewer && <dt>{t.decisions}</dt>}
        {refund.reviewer && <dd>{refund.reviewer} · {refund.review_note}</dd>}
        {waiting && <dt>{t.approvals}</dt>}
        {waiting && <dd id="approvals">{approvals.given}/{approvals.needed}</dd>}
      </StoryHeader>
      {waiting && (
        <DecisionForm
          frame={p}
          action={`/admin/refunds/${refund.id}/decide?lang=${p.lang}`}
          buttons={[["approve", t.approve], ["reject", t.reject]]}
        />
      )}
      <Entries lang={p.lang} entries={p.story.entries} />
      <Trail lang={p.lang} audit={p.story.audit} />
    </>,
  );
}
