// The disputes and held bulk batches screens: each list, and one item's story with the operator's answers
// (resolve / reject / escalate a dispute; approve / reject a batch), a note always asked for.
import type { DisputeView } from "../../domain/disputes/view.ts";
import type { BatchStory, DisputeStory } from "../../domain/operators/review_stories.ts";
import type { BatchRow } from "../../db/bulk.ts";
import { adminWords } from "./i18n.ts";
import { reviewWords } from "./review_i18n.ts";
import { Entries, reviewPage, type Shown, Trail } from "./review_views.tsx";
import { DecisionForm, StoryHeader } from "./story_parts.tsx";
import type { Frame } from "./views.tsx";
import { NextPage } from "./pager.tsx";

/** A batch may hold thousands of lines; the first ones tell the reviewer what it pays. */
const ITEMS_SHOWN = 200;
const UNDECIDED = new Set(["OPEN", "UNDER_REVIEW", "ESCALATED"]);

export function renderDisputes(
  p: Frame & { rows: Array<DisputeView & { merchantId: string }>; status: string },
): string {
  const t = adminWords(p.lang);
  const r = reviewWords(p.lang);
  const filters: Array<[string, string]> = [["", r.undecided], ["RESOLVED", "RESOLVED"], [
    "REJECTED",
    "REJECTED",
  ]];
  return reviewPage(
    { ...p, title: r.disputes },
    <div class="card scroll">
      <h1>{t.disputesOpen}</h1>
      <p>
        {filters.map(([value, label]) => (
          <>
            {value === p.status
              ? <strong>{label}</strong>
              : <a href={`/admin/disputes?lang=${p.lang}${value ? `&status=${value}` : ""}`}>{label}</a>}
            {" "}
          </>
        ))}
      </p>
      {p.rows.length === 0 ? <p>{r.nothingToDecide}</p> : (
        <table id="disputes">
          <thead>
            <tr>
              <th>{r.dispute}</th>
              <th>{t.merchant}</th>
              <th>{r.heldAmount}</th>
              <th>{r.deadline}</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((d) => (
              <tr>
                <td>
                  <a class="mono" href={`/admin/disputes/${d.id}?lang=${p.lang}`}>{d.id}</a>
                  <div class="muted">{d.status} · {d.reason}{d.isSandbox ? " · sandbox" : ""}</div>
                </td>
                <td class="mono">{d.merchantId}</td>
                <td>{d.heldAmount} / {d.amount} {d.currency}</td>
                <td class="muted">{d.evidenceDueAt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>,
  );
}

export function renderDispute(p: Frame & Shown & { story: DisputeStory; canDecide: boolean }): string {
  const t = adminWords(p.lang);
  const r = reviewWords(p.lang);
  const { dispute: d, merchant } = p.story;
  const buttons: Array<[string, string]> = [["resolve", r.resolve], ["reject", r.rejectDispute]];
  if (d.status !== "ESCALATED") buttons.push(["escalate", r.escalate]);
  return reviewPage(
    { ...p, title: d.id, back: `/admin/disputes?lang=${p.lang}` },
    <>
      <StoryHeader
        lang={p.lang}
        title={d.id}
        mono
        statusId="dispute-status"
        status={d.status}
        sandbox={d.isSandbox}
        merchant={merchant}
      >
        <dt>{r.payin}</dt>
        <dd class="mono">{d.transactionId}</dd>
        <dt>{t.amount}</dt>
        <dd>{d.amount} {d.currency}</dd>
        <dt>{r.heldAmount}</dt>
        <dd id="held">{d.heldAmount} {d.currency}</dd>
        <dt>{r.shortfall}</dt>
        <dd>{d.shortfall} {d.currency}</dd>
        <dt>{r.deadline}</dt>
        <dd>{d.evidenceDueAt}</dd>
        <dt>{r.reason}</dt>
        <dd>{d.reason} · {d.cardOrigin}</dd>
        <dt>{r.source}</dt>
        <dd>
          {d.source} · <span class="mono">{d.caseRef}</span>
        </dd>
        {d.outcome && <dt>{r.outcome}</dt>}
        {d.outcome && <dd>{d.outcome} · {d.decisionNote}</dd>}
      </StoryHeader>
      <div class="card" id="evidence">
        <h2>{r.evidence}</h2>
        {d.evidence.text
          ? <p class="evidence">{d.evidence.text}</p>
          : d.evidence.files.length === 0 && <p>{r.noEvidence}</p>}
        {d.evidence.submittedAt && <p class="muted">{d.evidence.submittedAt}</p>}
        {d.evidence.files.length > 0 && (
          <ul>
            {d.evidence.files.map((f) => (
              <li>
                {/* Served by the operator API's route: an attachment, never rendered inline. */}
                <a href={`/admin/api/disputes/${d.id}/files/${f.id}`} download>{f.fileName}</a>{" "}
                <span class="muted">{f.contentType} · {f.sizeBytes} B</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {UNDECIDED.has(d.status) && (
        <DecisionForm frame={p} action={`/admin/disputes/${d.id}/decide?lang=${p.lang}`} buttons={buttons} />
      )}
      <Entries lang={p.lang} entries={p.story.entries} />
      <Trail lang={p.lang} audit={p.story.audit} />
    </>,
  );
}

export function renderBatches(
  p: Frame & Shown & { rows: BatchRow[]; next: string | null; paged: boolean },
): string {
  const t = adminWords(p.lang);
  const r = reviewWords(p.lang);
  return reviewPage(
    { ...p, title: r.batches },
    <div class="card scroll">
      <h1>{t.bulkInReview}</h1>
      {p.rows.length === 0 ? <p>{r.nothingToDecide}</p> : (
        <table id="batches">
          <tbody>
            {p.rows.map((b) => (
              <tr>
                <td>
                  <a class="mono" href={`/admin/bulk/${b.id}?lang=${p.lang}`}>{b.id}</a>
                  <div class="muted">{b.label} · {b.item_count} · {b.rail}</div>
                </td>
                <td class="mono">{b.merchant_id}</td>
                <td>{b.total_amount} {b.currency}</td>
                <td class="muted">{b.review_reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPage lang={p.lang} base="/admin/bulk" next={p.next} paged={p.paged} />
    </div>,
  );
}

export function renderBatch(p: Frame & Shown & { story: BatchStory; canDecide: boolean }): string {
  const t = adminWords(p.lang);
  const r = reviewWords(p.lang);
  const { row, batch, merchant, approvalsNeeded } = p.story;
  const waiting = row.status === "PENDING_REVIEW";
  return reviewPage(
    { ...p, title: row.id, back: `/admin/bulk?lang=${p.lang}` },
    <>
      <StoryHeader
        lang={p.lang}
        title={row.id}
        mono
        statusId="batch-status"
        status={row.status}
        sandbox={row.is_sandbox}
        merchant={merchant}
        after={
          <>
            {waiting && approvalsNeeded === 2 && <p class="muted">{r.fourEyes}</p>}
            {waiting && row.first_approved_by && <p class="muted">{r.firstGivenBy} {row.first_approved_by}
            </p>}
          </>
        }
      >
        <dt>{r.batch}</dt>
        <dd>{batch.label} · {batch.rail} · {batch.itemCount}</dd>
        <dt>{r.total}</dt>
        <dd>{batch.totalAmount} {batch.currency}</dd>
        <dt>{r.totalDebited}</dt>
        <dd>{batch.totalDebited} {batch.currency}</dd>
        <dt>{r.reviewReason}</dt>
        <dd>{batch.reviewReason ?? "—"}</dd>
        {batch.reviewNote && <dt>{t.decisions}</dt>}
        {batch.reviewNote && <dd>{row.reviewed_by} · {batch.reviewNote}</dd>}
        {waiting && <dt>{t.approvals}</dt>}
        {waiting && <dd id="approvals">{row.first_approved_by ? 1 : 0}/{approvalsNeeded}</dd>}
      </StoryHeader>
      {waiting && (
        <DecisionForm
          frame={p}
          action={`/admin/bulk/${row.id}/decide?lang=${p.lang}`}
          buttons={[["approve", t.approve], ["reject", t.reject]]}
        />
      )}
      <div class="card scroll" id="items">
        <h2>{r.items}</h2>
        <table>
          <tbody>
            {"items" in batch && batch.items.slice(0, ITEMS_SHOWN).map((i) => (
              <tr>
                <td>{i.position}</td>
                <td class="mono">{i.walletAddress}</td>
                <td>{i.recipientName ?? ""}</td>
                <td>{i.amount}</td>
                <td class="muted">{i.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Entries lang={p.lang} entries={p.story.entries} />
      <Trail lang={p.lang} audit={p.story.audit} />
    </>,
  );
}
