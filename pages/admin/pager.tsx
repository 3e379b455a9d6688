// The "next page" link of the console's long lists: it carries the keyset cursor of the page's last row
// (domain/operators/console_lists.ts), and a way back to the first page once past it.
import type { Lang } from "../i18n.ts";
import { consoleWords } from "./console_i18n.ts";

/** A link to the next page of a list, carrying the keyset cursor (or nothing on the last page). */
export function NextPage(p: { lang: Lang; base: string; next: string | null; paged: boolean }) {
  const c = consoleWords(p.lang);
  const join = p.base.includes("?") ? "&" : "?";
  return (
    <p class="pager">
      {p.paged && <a href={`${p.base}${join}lang=${p.lang}`}>{c.firstPage}</a>} {p.next && (
        <a
          id="next-page"
          rel="next"
          href={`${p.base}${join}lang=${p.lang}&after=${encodeURIComponent(p.next)}`}
        >
          {c.nextPage}
        </a>
      )}
    </p>
  );
}
