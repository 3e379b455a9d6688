// The console's treasury screen: the hot wallet (USDT, TRX, energy), what waits on deposit addresses to be
// swept, what merchants are owed against what the chain holds, and the alarms (a shortfall, payouts
// waiting for the hot wallet past OUTBOUND_WAIT_ALARM_SECONDS) with the waiting items.
import type { treasuryReport } from "../../domain/treasury/reconcile.ts";
import { adminWords } from "./i18n.ts";
import { type Frame, Header, shell } from "./views.tsx";

export type TreasuryReport = Awaited<ReturnType<typeof treasuryReport>>;

export function renderTreasury(p: Frame & { report: TreasuryReport }): string {
  const t = adminWords(p.lang);
  const r = p.report;
  const alarms = [
    ...(r.reconciliation.shortfall ? [t.shortfallAlarm] : []),
    ...(r.waitingToSend.alarm ? [`${t.waitingAlarm} (${r.waitingToSend.oldestSeconds} s)`] : []),
  ];
  const energyLeft = Math.max(0, r.hotWallet.energy.limit - r.hotWallet.energy.used);
  return shell(
    p.lang,
    p.nonce,
    `${t.treasury} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        <div class="card" id="alarms">
          <h1>{t.treasury}</h1>
          <p class="muted">{t.checkedAt} {r.checkedAt}</p>
          <h2>{t.alarms}</h2>
          {alarms.length === 0
            ? <p class="ok">{t.noAlarm}</p>
            : alarms.map((a) => <p key={a} class="err" role="alert">{a}</p>)}
        </div>
        <div class="counts">
          <div class="card" id="hot-wallet">
            <h2>{t.hotWallet}</h2>
            <dl>
              <dt>{t.balance}</dt>
              <dd>{r.hotWallet.usdt} USDT</dd>
              <dt>TRX</dt>
              <dd>{r.hotWallet.trx}</dd>
              <dt>{t.energy}</dt>
              <dd>
                {energyLeft} {t.energyLeft} / {r.hotWallet.energy.limit}
              </dd>
              <dt>{t.staked}</dt>
              <dd>{r.hotWallet.energy.stakedTrx}</dd>
              <dt>{t.delegated}</dt>
              <dd>{r.hotWallet.energy.delegatedTrx}</dd>
            </dl>
            <p class="mono muted">{r.hotWallet.address}</p>
          </div>
          <div class="card" id="sweep">
            <h2>{t.awaitingSweep}</h2>
            <p class="count">
              <b>{r.awaitingSweep.usdt} USDT</b>
              {r.awaitingSweep.addresses} {t.addresses}
            </p>
          </div>
          <div class="card" id="owed">
            <h2>{t.owedVsHeld}</h2>
            <dl>
              <dt>{t.owed}</dt>
              <dd>{r.reconciliation.owedToMerchants}</dd>
              <dt>{t.wallets}</dt>
              <dd>{r.reconciliation.merchantWallets}</dd>
              <dt>{t.reserved}</dt>
              <dd>{r.reconciliation.reservedForPayouts}</dd>
              <dt>{t.held}</dt>
              <dd>{r.reconciliation.heldOnChain}</dd>
              <dt>{t.difference}</dt>
              <dd class={r.reconciliation.shortfall ? "alarm" : ""}>{r.reconciliation.difference}</dd>
              <dt>{t.conversions}</dt>
              <dd>{r.conversions.usdtPosition} USDT · {r.conversions.xofPosition} XOF</dd>
            </dl>
          </div>
        </div>
        <div class="card scroll" id="waiting">
          <h2>{t.waitingToSendList} ({r.waitingToSend.count})</h2>
          {r.waitingToSend.items.length === 0 ? <p>{t.nothing}</p> : (
            <table>
              <thead>
                <tr>
                  <th>{t.item}</th>
                  <th>{t.amount}</th>
                  <th>{t.reason}</th>
                  <th>{t.since}</th>
                </tr>
              </thead>
              <tbody>
                {r.waitingToSend.items.map((i) => (
                  <tr>
                    <td>
                      <a class="mono" href={`/admin/items/${i.id}?lang=${p.lang}`}>{i.id}</a>
                      <div class="muted">{i.kind} · {i.status}</div>
                    </td>
                    <td>{i.amount} USDT</td>
                    <td>{i.reason}</td>
                    <td class="muted">{i.waitingSeconds} s</td>
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
