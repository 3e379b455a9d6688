// The operator page's views, rendered on the server: sign-in, the queue with its counts, search results
// and one item's story with approve / reject. Plain forms and links: no script at all, one stylesheet under
// the response's CSP nonce, readable on a laptop and a phone.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import type { Lang } from "../i18n.ts";
import type { Queue } from "../../domain/operators/queue.ts";
import type { ItemStory } from "../../domain/operators/story.ts";
import type { FoundRecord } from "../../domain/operators/search.ts";
import type { Actor } from "../../domain/operators/roles.ts";
import { adminWords } from "./i18n.ts";
import { StoryDetails } from "./story_views.tsx";
import { NextPage } from "./pager.tsx";
import { CSS } from "./style.ts";

export function shell(lang: Lang, nonce: string, title: string, body: ComponentChildren): string {
  return "<!doctype html>" + renderToString(
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        {/* same-origin, not no-referrer: Chromium then sends the page's Origin with its forms (checked). */}
        <meta name="referrer" content="same-origin" />
        <title>{title}</title>
        <style nonce={nonce} dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>{body}</body>
    </html>,
  );
}

export function Header(p: { lang: Lang; actor: Actor; csrf: string }) {
  const t = adminWords(p.lang);
  return (
    <header>
      <strong>{t.title}</strong>
      <a href={`/admin/queue?lang=${p.lang}`}>{t.queue}</a>
      <a href={`/admin/merchants?lang=${p.lang}`}>{t.merchants}</a>
      <a href={`/admin/treasury?lang=${p.lang}`}>{t.treasury}</a>
      <a href={`/admin/account?lang=${p.lang}`}>{t.myAccount}</a>
      <span class="muted">{t.signedInAs} {p.actor.label} ({p.actor.role})</span>
      <form method="post" action="/admin/sign-out">
        <input type="hidden" name="_csrf" value={p.csrf} />
        <button type="submit">{t.signOut}</button>
      </form>
    </header>
  );
}

export function renderSignIn(p: { lang: Lang; nonce: string; error?: string; email?: string }): string {
  const t = adminWords(p.lang);
  return shell(
    p.lang,
    p.nonce,
    `${t.signIn} · ${t.title}`,
    <main class="signin">
      <div class="card">
        <h1>{t.signIn}</h1>
        {p.error && <p class="err" role="alert">{p.error}</p>}
        <form method="post" action={`/admin/sign-in?lang=${p.lang}`}>
          <label for="email">{t.email}</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={p.email ?? ""}
          />
          <label for="password">{t.password}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <label for="code">{t.code}</label>
          <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required />
          <button type="submit">{t.submitSignIn}</button>
        </form>
      </div>
    </main>,
  );
}

function SearchForm(p: { lang: Lang; q?: string }) {
  const t = adminWords(p.lang);
  return (
    <form class="search" method="get" action="/admin/search">
      <input type="hidden" name="lang" value={p.lang} />
      <input name="q" aria-label={t.search} placeholder={t.searchHint} value={p.q ?? ""} minLength={3} />
      <button type="submit">{t.search}</button>
    </form>
  );
}

export type Frame = { lang: Lang; nonce: string; actor: Actor; csrf: string };

export function renderQueue(
  p: Frame & { queue: Queue; next: string | null; paged: boolean; error?: string },
): string {
  const t = adminWords(p.lang);
  const c = p.queue.counts;
  // A count with a screen of its own links to it (the review screens: pages/admin/review_routes.ts).
  const counts: Array<[string, number, string?]> = [
    [t.withdrawalsInReview, c.withdrawalsInReview],
    [t.payoutsAwaitingApproval, c.payoutsAwaitingApproval],
    [t.waitingToSend, c.waitingToSend],
    [t.bulkInReview, c.bulkInReview, "bulk"],
    [t.payinHoldsOpen, c.payinHoldsOpen],
    [t.refundsAwaitingApproval, c.refundsAwaitingApproval, "refunds"],
    [t.disputesOpen, c.disputesOpen, "disputes"],
    [t.kybInReview, c.kybInReview, "kyb"],
    [t.providerStatusesHeld, c.providerStatusesHeld, "provider-statuses"],
  ];
  return shell(
    p.lang,
    p.nonce,
    `${t.queue} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <div class="card">
          <SearchForm lang={p.lang} />
        </div>
        <div class="card">
          <h1>{t.queue}</h1>
          <div class="counts">
            {counts.map(([label, n, screen]) => (
              <div class="count">
                <b>{n}</b>
                {screen
                  ? <a id={`count-${screen}`} href={`/admin/${screen}?lang=${p.lang}`}>{label}</a>
                  : label}
              </div>
            ))}
          </div>
        </div>
        <div class="card scroll" id="review-items">
          {p.error && <p class="err" role="alert">{p.error}</p>}
          {p.queue.items.length === 0 ? <p>{t.nothingWaits}</p> : (
            <table>
              <thead>
                <tr>
                  <th>{t.item}</th>
                  <th>{t.merchant}</th>
                  <th>{t.amount}</th>
                  <th>{t.approvals}</th>
                  <th>{t.created}</th>
                </tr>
              </thead>
              <tbody>
                {p.queue.items.map(({ row, approvals }) => (
                  <tr>
                    <td>
                      <a class="mono" href={`/admin/items/${row.id}?lang=${p.lang}`}>{row.id}</a>
                      <div class="muted">{row.kind} · {row.status}{row.is_sandbox ? " · sandbox" : ""}</div>
                    </td>
                    <td class="mono">{row.merchant_id}</td>
                    <td>{row.amount} {row.currency}</td>
                    <td>{approvals.given}/{approvals.needed}</td>
                    <td class="muted">{row.created_at.toISOString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <NextPage lang={p.lang} base="/admin/queue" next={p.next} paged={p.paged} />
        </div>
      </main>
    </>,
  );
}

/** The screen a found record opens on, if it has one. */
function screenOf(f: FoundRecord): string | undefined {
  switch (f.type) {
    case "PAYOUT":
    case "WITHDRAWAL":
      return `/admin/items/${f.id}`;
    case "REFUND":
      return `/admin/refunds/${f.id}`;
    case "DISPUTE":
      return `/admin/disputes/${f.id}`;
    case "BULK_BATCH":
      return `/admin/bulk/${f.id}`;
    case "BULK_ITEM":
      return f.batchId ? `/admin/bulk/${f.batchId}` : undefined;
    default:
      return undefined;
  }
}

export function renderSearch(p: Frame & { q: string; found: FoundRecord[]; error?: string }): string {
  const t = adminWords(p.lang);
  const link = (f: FoundRecord) => {
    const screen = screenOf(f);
    return screen ? `${screen}?lang=${p.lang}` : undefined;
  };
  return shell(
    p.lang,
    p.nonce,
    `${t.search} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <div class="card">
          <SearchForm lang={p.lang} q={p.q} />
        </div>
        <div class="card">
          {p.error && <p class="err">{p.error}</p>}
          {!p.error && p.found.length === 0 && <p>{t.noResult}</p>}
          {p.found.length > 0 && (
            <table id="found">
              <tbody>
                {p.found.map((f) => (
                  <tr>
                    <td>
                      {link(f) ? <a class="mono" href={link(f)}>{f.id}</a> : <span class="mono">{f.id}</span>}
                      <div class="muted">{f.type} · {f.status}{f.mode ? ` · ${f.mode}` : ""}</div>
                    </td>
                    <td>{f.amount} {f.currency}</td>
                    <td class="muted">{t.found} {f.matched}</td>
                    <td class="mono">{f.merchantId ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </main>
    </>,
  );
}

export function renderItem(
  p: Frame & { story: ItemStory; canDecide: boolean; error?: string; notice?: string },
): string {
  const t = adminWords(p.lang);
  const { row, merchant, approvals } = p.story;
  const waiting = row.status === "PENDING" || row.status === "PENDING_REVIEW";
  return shell(
    p.lang,
    p.nonce,
    `${row.id} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <p>
          <a href={`/admin/queue?lang=${p.lang}`}>{t.back}</a>
        </p>
        {p.error && <p class="err" role="alert">{p.error}</p>}
        {p.notice && <p class="ok" role="status">{p.notice}</p>}
        <div class="card">
          <h1 class="mono">{row.id}</h1>
          <dl>
            <dt>{t.status}</dt>
            <dd>{row.kind} · {row.status}{row.is_sandbox ? " · sandbox" : ""}</dd>
            <dt>{t.merchant}</dt>
            <dd>
              {merchant.name} <span class="mono muted">{merchant.id} · {merchant.status}</span>
            </dd>
            <dt>{t.amount}</dt>
            <dd>{row.amount} {row.currency}</dd>
            <dt>{t.fee}</dt>
            <dd>{row.fee}</dd>
            <dt>{t.net}</dt>
            <dd>{row.net_amount}</dd>
            <dt>{t.destination}</dt>
            <dd class="mono">{row.destination_address}</dd>
            <dt>{t.txHash}</dt>
            <dd class="mono">{row.tx_hash ?? "—"}</dd>
            <dt>{t.created}</dt>
            <dd>{row.created_at.toISOString()}</dd>
            {waiting && <dt>{t.approvals}</dt>}
            {waiting && <dd>{approvals.given}/{approvals.needed} {approvals.by.join(", ")}</dd>}
          </dl>
        </div>
        {waiting && (
          <div class="card">
            {p.canDecide
              ? (
                <form method="post" action={`/admin/items/${row.id}/decide?lang=${p.lang}`}>
                  <input type="hidden" name="_csrf" value={p.csrf} />
                  <label for="note">{t.note}</label>
                  <textarea id="note" name="note" maxLength={1000} />
                  <button type="submit" name="action" value="approve">{t.approve}</button>
                  <button type="submit" name="action" value="reject" class="no">{t.reject}</button>
                </form>
              )
              : <p class="muted">{t.viewerOnly}</p>}
          </div>
        )}
        <StoryDetails lang={p.lang} story={p.story} />
        <div class="card">
          <h2>{t.decisions}</h2>
          <table>
            <tbody>
              {p.story.decisions.map((d) => (
                <tr>
                  <td>{d.decision}</td>
                  <td>{d.operator}</td>
                  <td>{d.note ?? ""}</td>
                  <td class="muted">{d.created_at.toISOString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div class="card">
          <h2>{t.trail}</h2>
          <table>
            <tbody>
              {p.story.audit.map((r) => (
                <tr>
                  <td>#{r.seq} {r.action}</td>
                  <td>{r.actor.label} ({r.actor.role})</td>
                  <td>{r.note ?? ""}</td>
                  <td class="muted">{r.at}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </main>
    </>,
  );
}
