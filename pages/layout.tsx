// The document shell of the customer pages: one inline stylesheet and at most one inline script, both
// carrying the per-response CSP nonce. No font, no image file, no CDN: a page is one small response.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import type { Lang } from "./i18n.ts";

export const CSS = `*{box-sizing:border-box}html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#16202a;background:#edf1f5}
main{max-width:30rem;margin:0 auto;padding:10px}
.bar{display:flex;justify-content:space-between;align-items:center;gap:8px;font-size:15px;color:#47525e}
.bar a{color:#0b57a4;display:inline-block;padding:12px 4px;min-height:44px}
.card{background:#fff;border-radius:14px;padding:16px;box-shadow:0 1px 4px rgba(20,30,40,.1)}
.sbx{background:#fff4d6;color:#6b4a00;border-radius:8px;padding:8px 10px;font-size:14px;margin:0 0 12px}
h1{font-size:22px;margin:4px 0 12px;line-height:1.25}
.lbl{font-size:14px;color:#47525e;margin:0 0 2px}
.amt{display:flex;align-items:center;justify-content:space-between;gap:10px;flex-wrap:wrap;margin-bottom:4px}
.big{font-size:30px;font-weight:700;letter-spacing:-.01em;overflow-wrap:anywhere}
.big small{font-size:17px;font-weight:600;color:#47525e}
.net{font-size:14px;color:#8a3b00;background:#fff0e6;border-radius:8px;padding:6px 10px;margin:6px 0 14px}
.adr{font:15px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#f3f6f9;border:1px solid #d6dde4;border-radius:8px;
padding:10px;word-break:break-all;user-select:all;-webkit-user-select:all;margin:0 0 8px}
button{min-height:44px;padding:0 16px;border-radius:10px;border:2px solid #0b57a4;background:#fff;color:#0b57a4;
font:inherit;font-weight:600;cursor:pointer;touch-action:manipulation}
button.wide{width:100%}
button.ok{border-color:#137a3f;color:#137a3f}
.qr{display:block;width:min(220px,70vw);height:auto;margin:14px auto 4px;image-rendering:pixelated;border:1px solid #d6dde4;border-radius:8px}
.cd{display:flex;justify-content:space-between;align-items:center;margin:12px 0 0;padding:10px 12px;border-radius:10px;background:#f3f6f9}
.cd b{font:700 20px ui-monospace,Menlo,Consolas,monospace}
.st{margin:14px 0 0;padding:12px;border-radius:10px;background:#eaf2fb;color:#0b3d73}
.st p{margin:0}.st .hint{font-size:14px;margin-top:4px;color:#47525e}
.card>.st{margin:0}.st.good{background:#e6f5ec;color:#0e5a2f}.st.bad{background:#fdecea;color:#8a1c13}
progress{width:100%;height:12px;margin-top:8px;accent-color:#137a3f}
.done{text-align:center;padding:8px 0}.done h1{font-size:24px}
.mark{display:inline-flex;width:64px;height:64px;border-radius:50%;align-items:center;justify-content:center;font-size:36px;
color:#fff;background:#137a3f;margin:6px 0}.mark.bad{background:#b3261e}
a.btn{display:block;text-align:center;background:#0b57a4;color:#fff;font-weight:600;padding:13px 16px;border-radius:10px;
text-decoration:none;margin-top:14px;min-height:48px}
.fig{margin:0 0 8px}
.instr{margin:10px 0 12px;padding:10px 12px;border-left:4px solid #0b57a4;background:#f3f6f9;border-radius:0 8px 8px 0}
label{display:block;font-weight:600;margin:0 0 6px}
input.otp{display:block;width:100%;min-height:52px;padding:8px 12px;border:2px solid #8795a3;border-radius:10px;
font:700 24px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.3em;text-align:center;background:#fff;color:#16202a}
input.otp:focus{outline:3px solid #9cc3ec;border-color:#0b57a4}
button.go{width:100%;margin-top:10px;background:#0b57a4;color:#fff;min-height:48px}
button.go:disabled{opacity:.6}
.err{color:#8a1c13;background:#fdecea;border-radius:8px;padding:8px 10px;margin:8px 0 0;font-size:15px}
.alt{margin:14px 0 0;font-size:15px;color:#47525e}
a.sim{display:inline-block;margin-top:12px;padding:10px 0;color:#6b4a00;font-size:14px}
.small{font-size:13px;color:#5c6773;overflow-wrap:anywhere}
.payee{display:flex;gap:10px;align-items:center;margin:0 0 12px}.payee p{margin:0}.pn{font-weight:700}
.logo{width:44px;height:44px;border-radius:10px;flex:none}.mono{display:flex;align-items:center;justify-content:center;background:#0b57a4;color:#fff;font-weight:700}
[hidden]{display:none!important}`;

export function renderDocument(props: {
  lang: Lang;
  title: string;
  nonce: string;
  /** Extra head elements (e.g. the no-script refresh). */
  head?: ComponentChildren;
  script?: string;
  children: ComponentChildren;
}): string {
  const html = renderToString(
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: CSS }} />
        {props.head}
      </head>
      <body>
        {props.children}
        {props.script && <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.script }} />}
      </body>
    </html>,
  );
  return `<!doctype html>${html}`;
}

/** A fresh random nonce for one response's CSP. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Only self, the inline code carrying this nonce, and data: images (the QR code). Forms may post only to
 * this origin when the page has one (the SMS code), and nowhere otherwise.
 */
export function securityHeaders(
  nonce: string,
  options: { forms?: boolean; imageOrigins?: string[] } = {},
): Record<string, string> {
  return {
    "Content-Security-Policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      ["img-src data:", ...(options.imageOrigins ?? [])].join(" "),
      "connect-src 'self'",
      "base-uri 'none'",
      options.forms ? "form-action 'self'" : "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
  };
}
