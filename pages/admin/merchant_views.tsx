// The console's merchant screens: the list with search and filters, and one merchant with its status
// (suspend / reactivate with a note, admins only), KYB, fees and limits, keys (revoke) and webhook health.
import type { MerchantRow } from "../../db/merchants.ts";
import type { MerchantOverview } from "../../domain/operators/merchant_overview.ts";
import { adminWords } from "./i18n.ts";
import { type Frame, Header, shell } from "./views.tsx";
import { NextPage } from "./pager.tsx";

const STATUSES = ["ACTIVE", "SUSPENDED", "CLOSED"] as const;

export function renderMerchants(
  p: Frame & {
    q: string;
    status: string;
    rows: MerchantRow[];
    total: number;
    next: string | null;
    paged: boolean;
    error?: string;
  },
): string {
  const t = adminWords(p.lang);
  const filter = new URLSearchParams({
    ...(p.q ? { q: p.q } : {}),
    ...(p.status ? { status: p.status } : {}),
  });
  const base = `/admin/merchants${filter.size ? `?${filter}` : ""}`;
  return shell(
    p.lang,
    p.nonce,
    `${t.merchants} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <div class="card">
          <h1>{t.merchants} ({p.total})</h1>
          <form class="search" method="get" action="/admin/merchants">
            <input type="hidden" name="lang" value={p.lang} />
            <input name="q" aria-label={t.search} placeholder={t.merchantSearchHint} value={p.q} />
            <select name="status" aria-label={t.status}>
              <option value="">{t.allStatuses}</option>
              {STATUSES.map((s) => <option key={s} value={s} selected={p.status === s}>{s}</option>)}
            </select>
            <button type="submit">{t.search}</button>
          </form>
        </div>
        <div class="card">
          {p.error && <p class="err">{p.error}</p>}
          {!p.error && p.rows.length === 0 && <p>{t.noResult}</p>}
          {p.rows.length > 0 && (
            <table id="merchants">
              <thead>
                <tr>
                  <th>{t.merchant}</th>
                  <th>{t.status}</th>
                  <th>{t.kyb}</th>
                  <th>{t.created}</th>
                </tr>
              </thead>
              <tbody>
                {p.rows.map((m) => (
                  <tr>
                    <td>
                      <a href={`/admin/merchants/${m.id}?lang=${p.lang}`}>{m.name}</a>
                      <div class="mono muted">{m.id}</div>
                    </td>
                    <td>{m.status}</td>
                    <td>{m.kyb_status}</td>
                    <td class="muted">{m.created_at.toISOString().slice(0, 10)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <NextPage lang={p.lang} base={base} next={p.next} paged={p.paged} />
        </div>
      </main>
    </>,
  );
}

function Pairs(p: { values: Record<string, string | number> }) {
  return (
    <dl>
      {Object.entries(p.values).map(([k, v]) => (
        <>
          <dt class="mono">{k}</dt>
          <dd>{v}</dd>
        </>
      ))}
    </dl>
  );
}

export function renderMerchant(
  p: Frame & { view: MerchantOverview; canAdmin: boolean; error?: string; notice?: string },
): string {
  const t = adminWords(p.lang);
  const { merchant: m, keys, webhooks } = p.view;
  const next = m.status === "ACTIVE" ? "SUSPENDED" : m.status === "SUSPENDED" ? "ACTIVE" : undefined;
  return shell(
    p.lang,
    p.nonce,
    `${m.name} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <p>
          <a href={`/admin/merchants?lang=${p.lang}`}>{t.merchants}</a>
        </p>
        {p.error && <p class="err" role="alert">{p.error}</p>}
        {p.notice && <p class="ok" role="status">{p.notice}</p>}
        <div class="card">
          <h1>{m.name}</h1>
          <dl>
            <dt>Id</dt>
            <dd class="mono">{m.id}</dd>
            <dt>{t.status}</dt>
            <dd id="merchant-status">{m.status}</dd>
            <dt>{t.kyb}</dt>
            <dd id="merchant-kyb">{m.kyb_status}</dd>
            <dt>{t.created}</dt>
            <dd>{m.created_at.toISOString()}</dd>
          </dl>
          {next && p.canAdmin && (
            <form method="post" action={`/admin/merchants/${m.id}/status?lang=${p.lang}`}>
              <input type="hidden" name="_csrf" value={p.csrf} />
              <input type="hidden" name="status" value={next} />
              <label for="status-note">{t.statusNote}</label>
              <textarea id="status-note" name="note" maxLength={1000} />
              <button type="submit" id="status-button" class={next === "SUSPENDED" ? "no" : ""}>
                {next === "SUSPENDED" ? t.suspend : t.reactivate}
              </button>
            </form>
          )}
          {!p.canAdmin && <p class="muted">{t.adminOnly}</p>}
        </div>
        <div class="card">
          <h2>{t.fees}</h2>
          <Pairs values={p.view.fees} />
          <h2>{t.rateLimits}</h2>
          <Pairs values={p.view.rateLimits} />
        </div>
        <div class="card scroll">
          <h2>{t.keys}</h2>
          <table id="keys">
            <tbody>
              {keys.map((k) => (
                <tr>
                  <td>
                    <span class="mono">{k.prefix}…</span> <b>{k.status}</b>
                    <div class="muted">
                      {k.kind} · {k.mode}
                      {k.name ? ` · ${k.name}` : ""} · {t.lastUsed}: {k.lastUsedAt ?? "—"}
                    </div>
                  </td>
                  <td>
                    {p.canAdmin && !k.revokedAt && (
                      <form class="inline" method="post" action={`/admin/keys/${k.id}/revoke?lang=${p.lang}`}>
                        <input type="hidden" name="_csrf" value={p.csrf} />
                        <input type="hidden" name="merchant" value={m.id} />
                        <button type="submit" class="no">{t.revoke}</button>
                      </form>
                    )}
                    {k.revokedAt && <span class="muted">{t.revoked} {k.revokedAt}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div class="card scroll">
          <h2>{t.webhookHealth}</h2>
          {webhooks.length === 0 ? <p>{t.noEndpoint}</p> : (
            <table id="webhook-health">
              <thead>
                <tr>
                  <th>{t.endpoint}</th>
                  <th>{t.succeeded}</th>
                  <th>{t.failed}</th>
                  <th>{t.backlog}</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.map((w) => (
                  <tr>
                    <td>
                      <span class="mono">{w.url}</span>
                      <div class="muted">
                        {w.mode} · {w.status} · {t.failuresInARow}: {w.consecutiveFailures}
                      </div>
                    </td>
                    <td>{w.succeeded}</td>
                    <td class={w.failed > 0 ? "alarm" : ""}>{w.failed}</td>
                    <td>
                      {w.pending}
                      {w.oldestPendingSeconds !== null && (
                        <div class="muted">{t.oldestWaiting}: {w.oldestPendingSeconds} s</div>
                      )}
                    </td>
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
