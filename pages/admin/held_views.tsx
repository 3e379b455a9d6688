// The console's held aggregator statuses: the list (oldest first, a page at a time) and one held pay-in
// or disbursement with the operator's decision (succeeded / failed at the aggregator) and its required note.
import type { HeldStatusView } from "../../domain/providers/held_statuses.ts";
import type { HeldStory } from "../../domain/operators/console_lists.ts";
import { consoleWords } from "./console_i18n.ts";
import { adminWords } from "./i18n.ts";
import { NextPage } from "./pager.tsx";
import { reviewPage, type Shown, Trail } from "./review_views.tsx";
import { DecisionForm } from "./story_parts.tsx";
import type { Frame } from "./views.tsx";

export function renderHeldList(
  p: Frame & Shown & { rows: HeldStatusView[]; next: string | null; paged: boolean },
): string {
  const t = adminWords(p.lang);
  const c = consoleWords(p.lang);
  return reviewPage(
    { ...p, title: c.heldStatuses },
    <div class="card scroll">
      <h1>{c.heldStatuses}</h1>
      {p.rows.length === 0 ? <p>{t.nothingWaits}</p> : (
        <table id="held">
          <thead>
            <tr>
              <th>{t.item}</th>
              <th>{c.heldStatus}</th>
              <th>{t.amount}</th>
              <th>{c.heldSince}</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((h) => (
              <tr>
                <td>
                  <a class="mono" href={`/admin/provider-statuses/${h.id}?lang=${p.lang}`}>{h.id}</a>
                  <div class="muted">
                    {h.subjectKind} · {h.provider}
                    {h.mode === "sandbox" ? " · sandbox" : ""}
                  </div>
                </td>
                <td class="mono">{h.heldStatus}</td>
                <td class="amt">{h.amount} {h.currency}</td>
                <td class="muted">{h.heldAt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPage lang={p.lang} base="/admin/provider-statuses" next={p.next} paged={p.paged} />
    </div>,
  );
}

export function renderHeld(p: Frame & Shown & { story: HeldStory; canDecide: boolean }): string {
  const t = adminWords(p.lang);
  const c = consoleWords(p.lang);
  const h = p.story.held;
  return reviewPage(
    { ...p, title: h.id, back: `/admin/provider-statuses?lang=${p.lang}` },
    <>
      <div class="card">
        <h1 class="mono">{h.id}</h1>
        <p class="muted">{c.heldExplain}</p>
        <dl class="story">
          <dt>{c.kind}</dt>
          <dd>{h.subjectKind}{h.mode === "sandbox" ? " · sandbox" : ""}</dd>
          <dt>{c.provider}</dt>
          <dd>{h.provider}</dd>
          <dt>{c.heldStatus}</dt>
          <dd class="mono evidence" id="held-status">{h.heldStatus}</dd>
          <dt>{t.providerRef}</dt>
          <dd class="mono">{h.providerRef ?? "—"}</dd>
          <dt>{c.subjectStatus}</dt>
          <dd id="subject-status">{h.status}</dd>
          <dt>{t.merchant}</dt>
          <dd>
            <a class="mono" href={`/admin/merchants/${h.merchantId}?lang=${p.lang}`}>{h.merchantId}</a>
          </dd>
          <dt>{t.amount}</dt>
          <dd>{h.amount} {h.currency}</dd>
          <dt>{c.heldSince}</dt>
          <dd>{h.heldAt}</dd>
          <dt>{c.pollAttempts}</dt>
          <dd>{h.pollAttempts}</dd>
        </dl>
      </div>
      <DecisionForm
        frame={p}
        action={`/admin/provider-statuses/${h.id}/resolve?lang=${p.lang}`}
        buttons={[["SUCCEEDED", c.markSucceeded], ["FAILED", c.markFailed]]}
        name="outcome"
        noteLabel={c.outcomeNote}
      />
      <Trail lang={p.lang} audit={p.story.audit} />
    </>,
  );
}
