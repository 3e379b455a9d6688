// The operator page's one stylesheet, inlined under the response's CSP nonce (no outside asset).
export const CSS =
  `*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;
color:#16202a;background:#eef1f4}header{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:10px 16px;
background:#16202a;color:#fff}header a{color:#cfe3f7}header form{margin:0 0 0 auto}main{max-width:64rem;margin:0 auto;padding:12px}
.card{background:#fff;border-radius:10px;padding:14px;margin:0 0 12px;box-shadow:0 1px 3px rgba(20,30,40,.1)}
h1{font-size:20px;margin:0 0 10px}h2{font-size:16px;margin:0 0 8px}
.counts{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:8px}
.count{background:#f3f6f9;border-radius:8px;padding:8px 10px}.count b{display:block;font-size:22px}
table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:6px 4px;border-bottom:1px solid #e3e8ee;
vertical-align:top;overflow-wrap:anywhere}th{font-size:13px;color:#47525e;overflow-wrap:normal}
dl{display:grid;grid-template-columns:minmax(7rem,max-content) 1fr;gap:4px 12px;margin:0}dt{color:#47525e}dd{margin:0;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin:8px 0 4px}input,textarea{width:100%;font:inherit;padding:8px;border:1px solid #8795a3;
border-radius:8px}textarea{min-height:4rem}button{min-height:40px;padding:0 14px;border-radius:8px;border:2px solid #0b57a4;
background:#0b57a4;color:#fff;font:inherit;font-weight:600;cursor:pointer;margin:8px 8px 0 0}button.no{background:#fff;color:#8a1c13;
border-color:#8a1c13}header button{background:transparent;border-color:#cfe3f7;color:#cfe3f7;margin:0}
.err{color:#8a1c13;background:#fdecea;border-radius:8px;padding:8px 10px;margin:0 0 10px}
.ok{color:#0e5a2f;background:#e6f5ec;border-radius:8px;padding:8px 10px;margin:0 0 10px}
.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}.muted{color:#5c6773;font-size:13px}
.signin{max-width:24rem;margin:8vh auto}form.search{display:flex;flex-wrap:wrap;gap:8px}form.search button{margin:0}
form.search input{flex:1 1 12rem;width:auto}select{font:inherit;padding:8px;border-radius:8px;border:1px solid #8795a3}
.scroll{overflow-x:auto}.alarm{color:#8a1c13;font-weight:600}form.inline{display:inline;margin:0}form.inline button{margin:0;min-height:32px;white-space:nowrap}
.evidence{white-space:pre-wrap;overflow-wrap:anywhere}td.amt{white-space:nowrap;overflow-wrap:normal}
dl.story{grid-template-columns:minmax(6rem,38%) 1fr}.thread{border-top:1px solid #e3e8ee;padding:8px 0}
.messages{list-style:none;padding:0;margin:0}.messages li{padding:4px 0}.pager{margin:10px 0 0}`;
