// The two parts every review story shares (refunds, disputes, bulk batches, KYB; the decision form also held
// statuses): the first card naming the item, its status and merchant, and the decision with its required note.
import type { ComponentChildren } from "preact";
import type { Lang } from "../i18n.ts";
import { adminWords } from "./i18n.ts";
import { reviewWords } from "./review_i18n.ts";

/**
 * The story's first card: a title, the status (id `statusId`, for tests and links), the merchant, then the
 * screen's own lines (`children`, pairs of dt/dd) and what follows the list (`after`).
 */
export function StoryHeader(
  p: {
    lang: Lang;
    title: ComponentChildren;
    /** The title is an id: shown in monospace. */
    mono?: boolean;
    statusId: string;
    status: string;
    sandbox?: boolean;
    /** The merchant's name, id and status, unless `merchantLine` says it otherwise. */
    merchant: { id: string; name: string; status: string };
    merchantLine?: ComponentChildren;
    children?: ComponentChildren;
    after?: ComponentChildren;
  },
) {
  const t = adminWords(p.lang);
  const { merchant } = p;
  return (
    <div class="card">
      <h1 class={p.mono ? "mono" : undefined}>{p.title}</h1>
      <dl class="story">
        <dt>{t.status}</dt>
        <dd id={p.statusId}>{p.status}{p.sandbox ? " · sandbox" : ""}</dd>
        <dt>{t.merchant}</dt>
        <dd>
          {p.merchantLine ?? (
            <>
              {merchant.name} <span class="mono muted">{merchant.id} · {merchant.status}</span>
            </>
          )}
        </dd>
        {p.children}
      </dl>
      {p.after}
    </div>
  );
}

/**
 * Approve / reject (or the dispute's three answers) with a required note, in a card of its own; a viewer
 * sees why not.
 */
export function DecisionForm(
  p: {
    frame: { lang: Lang; csrf: string; canDecide: boolean };
    action: string;
    buttons: Array<[string, string]>;
    /** The buttons' field name ("action" unless told). */
    name?: string;
    noteLabel?: string;
  },
) {
  const { lang, csrf, canDecide } = p.frame;
  const r = reviewWords(lang);
  return (
    <div class="card">
      {!canDecide
        ? <p class="muted">{adminWords(lang).viewerOnly}</p>
        : (
          <form method="post" action={p.action} id="decide">
            <input type="hidden" name="_csrf" value={csrf} />
            <label for="note">{p.noteLabel ?? r.noteRequired}</label>
            <textarea id="note" name="note" maxLength={1000} required />
            {p.buttons.map(([value, label], i) => (
              <button
                type="submit"
                name={p.name ?? "action"}
                value={value}
                class={i === 0 ? undefined : "no"}
              >
                {label}
              </button>
            ))}
          </form>
        )}
    </div>
  );
}
