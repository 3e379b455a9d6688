// The console's KYB screens: the reviews waiting (SUBMITTED, first come first served, a page at a time)
// and one review: the business details, the documents (downloads from the operator API, served only as
// attachments), the question threads (ask, reply, resolve / dismiss) and approve / reject with a note.
import type { KybStory } from "../../domain/operators/console_lists.ts";
import { consoleWords } from "./console_i18n.ts";
import { adminWords } from "./i18n.ts";
import { reviewPage, type Shown, Trail } from "./review_views.tsx";
import { DecisionForm, StoryHeader } from "./story_parts.tsx";
import type { Frame } from "./views.tsx";
import { NextPage } from "./pager.tsx";

type KybRow = {
  merchant_id: string;
  merchant_name: string;
  submitted_at: Date | null;
  documents: number;
  open_threads: number;
};

export function renderKybList(
  p: Frame & Shown & { rows: KybRow[]; next: string | null; paged: boolean },
): string {
  const t = adminWords(p.lang);
  const c = consoleWords(p.lang);
  return reviewPage(
    { ...p, title: c.kybReviews },
    <div class="card scroll">
      <h1>{c.kybReviews}</h1>
      {p.rows.length === 0 ? <p>{t.nothingWaits}</p> : (
        <table id="kyb-reviews">
          <thead>
            <tr>
              <th>{t.merchant}</th>
              <th>{c.submitted}</th>
              <th>{c.documents}</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr>
                <td>
                  <a href={`/admin/kyb/${r.merchant_id}?lang=${p.lang}`}>{r.merchant_name}</a>
                  <div class="mono muted">{r.merchant_id}</div>
                </td>
                <td class="muted">{r.submitted_at?.toISOString() ?? "—"}</td>
                <td>
                  {r.documents} {c.documentsCount}
                  {r.open_threads > 0 && <div class="muted">{r.open_threads} {c.openThreads}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPage lang={p.lang} base="/admin/kyb" next={p.next} paged={p.paged} />
    </div>,
  );
}

const BUSINESS_FIELDS = [
  "legalName",
  "tradingName",
  "registrationNumber",
  "country",
  "address",
  "representativeName",
  "contactEmail",
  "website",
  "description",
] as const;

export function renderKybReview(p: Frame & Shown & { story: KybStory; canDecide: boolean }): string {
  const t = adminWords(p.lang);
  const c = consoleWords(p.lang);
  const { review, merchant } = p.story;
  const id = merchant.id;
  const waiting = review.status === "SUBMITTED";
  return reviewPage(
    { ...p, title: `${c.kybReview} · ${merchant.name}`, back: `/admin/kyb?lang=${p.lang}` },
    <>
      <StoryHeader
        lang={p.lang}
        title={<>{c.kybReview} · {merchant.name}</>}
        statusId="kyb-status"
        status={review.status}
        merchant={merchant}
        merchantLine={
          <>
            <a href={`/admin/merchants/${id}?lang=${p.lang}`} class="mono">{id}</a>{" "}
            <span class="muted">{merchant.status} · KYB {merchant.kyb_status}</span>
          </>
        }
      >
        <dt>{c.submitted}</dt>
        <dd>{review.submittedAt ?? "—"}</dd>
        {review.decidedAt && <dt>{c.decidedAt}</dt>}
        {review.decidedAt && <dd>{review.decidedAt}</dd>}
        {review.decisionNote && <dt>{c.decisionNote}</dt>}
        {review.decisionNote && <dd class="evidence">{review.decisionNote}</dd>}
      </StoryHeader>
      <div class="card" id="business">
        <h2>{c.business}</h2>
        <dl class="story">
          {BUSINESS_FIELDS.filter((f) => typeof review.business[f] === "string").map((f) => (
            <>
              <dt>{c[f]}</dt>
              <dd class="evidence">{String(review.business[f])}</dd>
            </>
          ))}
        </dl>
      </div>
      <div class="card" id="documents">
        <h2>{c.documents}</h2>
        {review.documents.length === 0 ? <p>{c.noDocument}</p> : (
          <ul>
            {review.documents.map((d) => (
              <li>
                {/* The operator API's route answers an attachment: never rendered by the console's origin. */}
                <a href={`/admin/api/kyb/${id}/documents/${d.id}`} download>{d.fileName}</a>{" "}
                <span class="muted">{d.kind} · {d.contentType} · {d.sizeBytes} B · {d.uploadedAt}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {waiting && (
        <DecisionForm
          frame={p}
          action={`/admin/kyb/${id}/decide?lang=${p.lang}`}
          buttons={[["approve", c.approveKyb], ["reject", c.rejectKyb]]}
        />
      )}
      <div class="card" id="threads">
        <h2>{c.threads}</h2>
        {review.threads.length === 0 && <p>{c.noThread}</p>}
        {review.threads.map((th) => (
          <div class="thread" id={`thread-${th.id}`}>
            <p>
              <strong>{c.thread}</strong> <span class="mono muted">{th.id}</span>{" "}
              <span class="thread-status">{th.status}</span>
            </p>
            <ul class="messages">
              {th.messages.map((m) => (
                <li>
                  <span class="muted">
                    {m.author === "MERCHANT" ? c.merchantSide : c.operatorSide} · {m.authorName} ·{" "}
                    {m.createdAt}
                  </span>
                  <div class="evidence">{m.body}</div>
                </li>
              ))}
            </ul>
            {th.status === "OPEN" && p.canDecide && (
              <form method="post" action={`/admin/kyb/${id}/threads/${th.id}?lang=${p.lang}`}>
                <input type="hidden" name="_csrf" value={p.csrf} />
                <label for={`message-${th.id}`}>{c.answerOrClose}</label>
                <textarea id={`message-${th.id}`} name="message" maxLength={4000} required />
                <button type="submit" name="action" value="reply">{c.reply}</button>
                <button type="submit" name="action" value="resolve" class="no">{c.resolveThread}</button>
                <button type="submit" name="action" value="dismiss" class="no">{c.dismissThread}</button>
              </form>
            )}
          </div>
        ))}
        {p.canDecide
          ? (
            <form method="post" action={`/admin/kyb/${id}/threads?lang=${p.lang}`} id="ask">
              <label for="question">{c.askQuestion}</label>
              <input type="hidden" name="_csrf" value={p.csrf} />
              <textarea id="question" name="message" maxLength={4000} required />
              <button type="submit">{c.ask}</button>
            </form>
          )
          : <p class="muted">{t.viewerOnly}</p>}
      </div>
      <Trail lang={p.lang} audit={p.story.audit} />
    </>,
  );
}
