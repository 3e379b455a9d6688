// The deeper parts of an item's story: its chain or provider references with confirmations, its ledger
// entries journal by journal, and the webhook deliveries of its events.
import type { ItemStory } from "../../domain/operators/story.ts";
import type { Lang } from "../i18n.ts";
import { adminWords } from "./i18n.ts";

export function StoryDetails(p: { lang: Lang; story: ItemStory }) {
  const t = adminWords(p.lang);
  const { row, entries, deliveries, chain } = p.story;
  return (
    <>
      <div class="card scroll" id="chain">
        <h2>{t.chainRefs}</h2>
        {chain.length === 0 && !row.provider_ref && <p>{t.nothing}</p>}
        {row.provider_ref && (
          <p>
            {t.providerRef}: <span class="mono">{row.provider_ref}</span>
          </p>
        )}
        {chain.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>{t.txHash}</th>
                <th>{t.block}</th>
                <th>{t.confirmations}</th>
                <th>{t.status}</th>
              </tr>
            </thead>
            <tbody>
              {chain.map((c) => (
                <tr>
                  <td class="mono">{c.txId}</td>
                  <td>{c.block ?? "—"}</td>
                  <td>{c.confirmations ?? "—"}</td>
                  <td class="muted">
                    {c.result ?? "…"}
                    {c.superseded ? " · superseded" : ""} · ×{c.broadcasts}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div class="card scroll" id="ledger">
        <h2>{t.ledger}</h2>
        {entries.length === 0 ? <p>{t.nothing}</p> : (
          <table>
            <thead>
              <tr>
                <th>{t.journal}</th>
                <th>{t.account}</th>
                <th>{t.amount}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr>
                  <td>
                    <span class="mono">{e.reference}</span>
                    <div class="muted">{e.kind} · {e.created_at.toISOString()}</div>
                  </td>
                  <td>
                    <span class="mono">{e.account_id}</span>
                    <div class="muted">{e.account_kind}</div>
                  </td>
                  <td class="mono">{e.amount} {e.currency}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div class="card scroll" id="deliveries">
        <h2>{t.webhooks}</h2>
        {deliveries.length === 0 ? <p>{t.nothing}</p> : (
          <table>
            <thead>
              <tr>
                <th>{t.event}</th>
                <th>{t.endpoint}</th>
                <th>{t.attempts}</th>
                <th>{t.status}</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr>
                  <td>
                    {d.event_type}
                    <div class="mono muted">{d.event_id}</div>
                  </td>
                  <td class="mono">{d.url}</td>
                  <td>{d.attempt_count}</td>
                  <td>
                    {d.status}
                    {d.last_status_code !== null && <span class="muted">· HTTP {d.last_status_code}</span>}
                    {d.last_error && <div class="muted">{d.last_error.slice(0, 200)}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
