// The hosted paylink page at the paylink's paymentUrl (/pay/link/:slug): the merchant's brand, cover and
// logo, the products with quantities, a promo code field, the customer fields the paylink collects, the
// choice of rail with the price in its currency (locked for 5 minutes when picked), then the pay-in's own
// checkout. Server-rendered and translated; the small inline script (paylink_script.ts) keeps the cart.
// Nothing is loaded from another host; Open Graph tags make the link preview well in WhatsApp.
import type { ShopProduct, ShopView } from "../domain/shop/storefront.ts";
import { displayAmountIn } from "../domain/payins/checkout.ts";
import type { PaymentRail } from "../domain/merchants/mod.ts";
import { type Lang, SHOP_MESSAGES, type ShopMessages } from "./shop_i18n.ts";
import { renderDocument } from "./layout.tsx";
import { MerchantMark } from "./payee.tsx";
import { PAYLINK_SCRIPT } from "./paylink_script.ts";

const UNIT = { USDT_TRC20: "USDT", XOF: "XOF" } as const;

export const SHOP_CSS =
  `.cover{display:block;width:100%;height:auto;max-height:180px;object-fit:cover;border-radius:14px;margin:0 0 10px}
.head{display:flex;gap:12px;align-items:center;margin:0 0 6px}.head h1{margin:0;font-size:21px}
.muted{color:#47525e;font-size:15px;margin:4px 0 0}
.sec{margin:14px 0 0}.sec>h2{font-size:16px;margin:0 0 8px}
.prod{display:flex;gap:10px;align-items:center;padding:10px 0;border-top:1px solid #e3e8ee}
.prod img{width:56px;height:56px;border-radius:8px;object-fit:cover;flex:none}
.prod .info{flex:1;min-width:0}.prod .nm{font-weight:600;margin:0;overflow-wrap:anywhere}
.prod .pr{margin:2px 0 0;color:#16202a}.prod .av{margin:2px 0 0;font-size:13px;color:#8a3b00}
.qty{display:flex;align-items:center;gap:4px;flex:none}.qty button{min-width:40px;padding:0;font-size:20px}
.qty input{width:44px;min-height:40px;text-align:center;font:inherit;border:1px solid #8795a3;border-radius:8px}
.row{display:flex;gap:8px}.row input{flex:1;min-width:0}
input.f,textarea.f{display:block;width:100%;min-height:44px;padding:8px 10px;border:1px solid #8795a3;border-radius:10px;font:inherit;margin:0 0 10px}
label small{font-weight:400;color:#5c6773}
.rail{display:flex;gap:10px;align-items:center;padding:12px;border:2px solid #d6dde4;border-radius:12px;margin:0 0 8px;cursor:pointer}
.rail input{width:20px;height:20px;accent-color:var(--brand)}.rail .rn{flex:1;font-weight:600}.rail .rp{font-weight:700}
.rail:has(input:checked){border-color:var(--brand)}
.sum p{display:flex;justify-content:space-between;margin:4px 0}.sum .tot{font-size:20px;font-weight:700}
.lock{font-size:13px;color:#0e5a2f}
button.pay{width:100%;min-height:52px;margin-top:12px;background:var(--brand);border-color:var(--brand);color:#fff;font-size:18px}
button.pay:disabled{opacity:.55}
.ok{color:#0e5a2f;font-size:15px;margin:6px 0 0}
.closed{text-align:center;padding:8px 0}`;

function money(amount: string, currency: ShopView["currency"], lang: Lang): string {
  return `${displayAmountIn(amount, currency, lang)} ${UNIT[currency]}`;
}

function Product(props: { p: ShopProduct; v: ShopView; lang: Lang; t: ShopMessages }) {
  const { p, t } = props;
  const soldOut = p.available !== null && p.available <= 0;
  const max = p.available === null ? 99 : Math.min(99, p.available);
  return (
    <div class="prod" data-prod={p.id} data-price={p.price} data-max={String(max)}>
      {p.imageUrl && <img src={p.imageUrl} alt="" width={56} height={56} loading="lazy" />}
      <div class="info">
        <p class="nm">{p.name}</p>
        {p.description && <p class="muted">{p.description}</p>}
        <p class="pr">{money(p.price, props.v.currency, props.lang)}</p>
        {soldOut && <p class="av">{t.soldOut}</p>}
        {!soldOut && p.lowStock && <p class="av">{t.fewLeft.replace("{n}", String(p.available))}</p>}
        {p.productType === "DIGITAL" && <p class="muted">{t.digital}</p>}
      </div>
      {!soldOut && (
        <div class="qty">
          <button type="button" data-dec="" aria-label={`${t.less} ${p.name}`}>−</button>
          <input
            type="number"
            inputmode="numeric"
            min="0"
            max={String(max)}
            value="0"
            aria-label={`${t.quantity} ${p.name}`}
            data-q=""
          />
          <button type="button" data-inc="" aria-label={`${t.more} ${p.name}`}>+</button>
        </div>
      )}
    </div>
  );
}

function Field(props: {
  name: string;
  rule: string;
  label: string;
  t: ShopMessages;
  type?: "text" | "email" | "tel";
  auto?: string;
  rails?: PaymentRail[];
}) {
  const hiddenUnlessRail = props.rule === "HIDDEN";
  return (
    <div
      data-field={props.name}
      data-rule={props.rule}
      data-rails={(props.rails ?? []).join(" ")}
      hidden={hiddenUnlessRail}
    >
      <label for={`f-${props.name}`}>
        {props.label} {props.rule !== "REQUIRED" && <small data-opt="">{props.t.optional}</small>}
      </label>
      {props.name === "customerAddress"
        ? (
          <textarea
            class="f"
            id={`f-${props.name}`}
            name={props.name}
            rows={2}
            maxLength={500}
            autocomplete="street-address"
          />
        )
        : (
          <input
            class="f"
            id={`f-${props.name}`}
            name={props.name}
            {...{ type: props.type ?? "text" } as Record<string, string>}
            autocomplete={props.auto}
            maxLength={props.name === "customerEmail" ? 254 : 200}
            required={props.rule === "REQUIRED"}
          />
        )}
    </div>
  );
}

function railLabel(t: ShopMessages, rail: PaymentRail): string {
  return rail === "USDT_TRC20" ? t.railUsdt : rail === "CARD" ? t.railCard : t.railMomo;
}

function ShopBody(props: { v: ShopView; lang: Lang }) {
  const { v, lang } = props;
  const t = SHOP_MESSAGES[lang];
  const other: Lang = lang === "fr" ? "en" : "fr";
  const open = v.merchantAvailable && v.status === "ACTIVE" && v.products.length > 0 && v.rails.length > 0;
  const errors = JSON.stringify(t.errors);
  const emailRule = v.needsEmail ? "REQUIRED" : v.collect.email;
  return (
    <main
      id="shop"
      data-slug={v.slug}
      data-cur={v.currency}
      data-lang={lang}
      data-errors={errors}
      data-locked={t.locked}
      data-applied={t.promoApplied}
      data-paying={t.paying}
    >
      <div class="bar">
        <span>{v.merchant.displayName}</span>
        <a href={`?lang=${other}`} hreflang={other} lang={other}>{t.switchTo}</a>
      </div>
      {v.coverImageUrl && <img class="cover" src={v.coverImageUrl} alt="" width={480} height={180} />}
      <div class="card">
        {v.isSandbox && <p class="sbx">{t.sandbox}</p>}
        <div class="head">
          <MerchantMark merchant={v.merchant} />
          <div>
            <p class="lbl">
              {t.sellerIs} <b data-merchant="">{v.merchant.displayName}</b>
            </p>
            <h1>{v.title}</h1>
          </div>
        </div>
        {v.description && <p class="muted">{v.description}</p>}
        {!open && (
          <div class="closed st bad" data-closed={v.merchantAvailable ? v.status : "MERCHANT"}>
            <p>
              {!v.merchantAvailable
                ? t.merchantUnavailable
                : v.status === "ACTIVE"
                ? t.unavailable
                : t.closed}
            </p>
          </div>
        )}
        {open && (
          <form id="cart" novalidate>
            <div class="sec">
              <h2>{t.products}</h2>
              {v.products.map((p) => <Product key={p.id} p={p} v={v} lang={lang} t={t} />)}
            </div>
            {v.type === "VARIABLE" && (
              <div class="sec">
                <label for="amount">{t.yourAmount} ({v.currency === "XOF" ? "XOF" : "USDT"})</label>
                <input
                  class="f"
                  id="amount"
                  name="amount"
                  data-amount=""
                  inputmode={v.currency === "XOF" ? "numeric" : "decimal"}
                  autocomplete="off"
                  maxLength={24}
                />
                <p class="muted" id="amount-hint" data-hint={t.amountHint}></p>
              </div>
            )}
            {v.hasPromoCodes && (
              <div class="sec">
                <label for="promo">{t.promo}</label>
                <div class="row">
                  <input class="f" id="promo" name="promo" autocomplete="off" maxLength={64} />
                  <button type="button" id="apply">{t.apply}</button>
                </div>
                <p class="ok" id="promo-ok" hidden></p>
                <p class="err" id="promo-err" hidden></p>
              </div>
            )}
            <div class="sec" id="customer">
              <h2>{t.yourDetails}</h2>
              <Field
                name="customerName"
                rule={v.collect.name}
                label={t.name}
                t={t}
                auto="name"
                rails={["CARD"]}
              />
              <Field
                name="customerEmail"
                rule={emailRule}
                label={t.email}
                t={t}
                type="email"
                auto="email"
                rails={["CARD"]}
              />
              <Field
                name="customerPhone"
                rule={v.collect.phone}
                label={t.phone}
                t={t}
                type="tel"
                auto="tel"
                rails={["MOBILE_MONEY"]}
              />
              <Field name="customerAddress" rule={v.collect.address} label={t.address} t={t} />
            </div>
            <div class="sec">
              <h2>{t.payWith}</h2>
              {v.rails.map((r, i) => (
                <label key={r.rail} class="rail">
                  <input
                    type="radio"
                    name="rail"
                    value={r.rail}
                    checked={i === 0}
                    data-rate={r.rate ?? ""}
                    data-to={r.currency}
                  />
                  <span class="rn">{railLabel(t, r.rail)}</span>
                  <span class="rp" data-railprice={r.rail}>—</span>
                </label>
              ))}
              <p class="lock" id="lock" hidden></p>
            </div>
            <div class="sec sum">
              <p>
                <span>{t.subtotal}</span> <span id="sub">{money("0", v.currency, lang)}</span>
              </p>
              <p id="disc-row" hidden>
                <span>{t.discount}</span> <span id="disc"></span>
              </p>
              <p class="tot">
                <span>{t.toPay}</span> <span id="tot">—</span>
              </p>
            </div>
            <p class="err" id="err" hidden></p>
            <button type="submit" class="pay" id="pay" disabled>{t.pay}</button>
            <noscript>
              <p class="err">{t.noScript}</p>
            </noscript>
          </form>
        )}
      </div>
      <p class="small">{t.secured}</p>
    </main>
  );
}

export function renderPaylinkPage(v: ShopView, lang: Lang, nonce: string): string {
  const t = SHOP_MESSAGES[lang];
  const description = v.description ?? t.ogDescription.replace("{m}", v.merchant.displayName);
  const brand = v.brandColor ?? "#0b57a4";
  return renderDocument({
    lang,
    nonce,
    title: `${v.title} · ${v.merchant.displayName}`,
    head: (
      <>
        <meta name="description" content={description} />
        <meta property="og:type" content="website" />
        <meta property="og:site_name" content={v.merchant.displayName} />
        <meta property="og:title" content={v.title} />
        <meta property="og:description" content={description} />
        <meta property="og:url" content={v.paymentUrl} />
        <meta property="og:locale" content={lang === "fr" ? "fr_FR" : "en_US"} />
        {v.coverImageUrl && <meta property="og:image" content={v.coverImageUrl} />}
        <meta name="twitter:card" content={v.coverImageUrl ? "summary_large_image" : "summary"} />
        <meta name="theme-color" content={brand} />
        <style
          nonce={nonce}
          dangerouslySetInnerHTML={{
            __html: `:root{--brand:${brand}}.logo.mono{background:var(--brand)}\n${SHOP_CSS}`,
          }}
        />
      </>
    ),
    script: PAYLINK_SCRIPT,
    children: <ShopBody v={v} lang={lang} />,
  });
}

export function renderPaylinkNotFound(lang: Lang, nonce: string): string {
  const t = SHOP_MESSAGES[lang];
  return renderDocument({
    lang,
    nonce,
    title: t.notFound,
    children: (
      <main>
        <div class="card done">
          <span class="mark bad" aria-hidden="true">?</span>
          <h1>{t.notFound}</h1>
          <p>{t.notFoundText}</p>
        </div>
      </main>
    ),
  });
}
