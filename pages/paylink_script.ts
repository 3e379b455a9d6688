// The hosted paylink page's only script, inlined with the CSP nonce (plain ES5 for old phone browsers).
// It keeps the cart (quantities within stock), previews a promo code (apply-promo), locks the rate of the
// chosen rail for 5 minutes (rate-lock) and shows the price in that rail's currency (on a VARIABLE paylink,
// of the amount the customer typed), shows the customer fields the rail needs, then posts the checkout and
// sends the customer to the pay-in's own page. Amounts shown here are a preview: the server computes the
// real ones and the checkout page shows them.
export const PAYLINK_SCRIPT = `(function(){
var d=document,root=d.getElementById("shop"),form=d.getElementById("cart");if(!root||!form)return;
var ds=root.dataset,slug=ds.slug,cur=ds.cur,lang=ds.lang,errs=JSON.parse(ds.errors),promo=null,lock=null,busy=0,lockTimer=0;
var DEC={XOF:0,USDT_TRC20:6},UNIT={XOF:"XOF",USDT_TRC20:"USDT"};
function $(id){return d.getElementById(id)}
function all(s){return Array.prototype.slice.call(d.querySelectorAll(s))}
function group(s){return s.replace(/\\B(?=(\\d{3})+(?!\\d))/g,lang==="fr"?"\\u202f":",")}
function fmt(n,c){if(c==="XOF")return group(String(Math.round(n)))+" XOF";var s=n.toFixed(6).replace(/0+$/,"");var p=s.split(".");var f=p[1]||"";while(f.length<2)f+="0";return group(p[0])+"."+f+" USDT"}
function up(n,c){var k=Math.pow(10,DEC[c]);return Math.ceil(n*k-1e-9)/k}
function down(n,c){var k=Math.pow(10,DEC[c]);return Math.floor(n*k+1e-9)/k}
function items(){var out=[];all("[data-prod]").forEach(function(p){var q=p.querySelector("[data-q]");var n=q?parseInt(q.value,10)||0:0;if(n>0)out.push({productId:p.getAttribute("data-prod"),quantity:n})});return out}
function cart(){var s=0;all("[data-prod]").forEach(function(p){var q=p.querySelector("[data-q]");if(q)s+=(parseInt(q.value,10)||0)*parseFloat(p.getAttribute("data-price"))});return s}
var chosen=$("amount"),hint=$("amount-hint");
function chosenValue(){return chosen?chosen.value.trim().replace(",","."):""}
function subtotal(){var c=cart(),v=parseFloat(chosenValue());if(hint)hint.textContent=hint.getAttribute("data-hint").replace("{min}",fmt(c,cur));return c>0&&v>0?v:c}
function discount(sub){if(!promo||sub<=0)return 0;var v=parseFloat(promo.discountValue);var x=promo.discountType==="PERCENT"?down(sub*v/100,cur):v;return x<sub?x:0}
function rail(){var r=form.querySelector("input[name=rail]:checked");return r}
function show(el,text){el.textContent=text;el.hidden=!text}
function err(text){show($("err"),text||"")}
function message(body){var e=body&&body.error;if(!e)return errs.OTHER;var m=errs[e.code]||errs.OTHER;
if(e.code==="VALIDATION_ERROR")m=m.replace("{f}",(e.details||[]).map(function(x){return x.field}).join(", ")||e.message);
var left=e.cause==="OUT_OF_STOCK"&&e.details&&e.details[0]?parseInt(e.details[0].reason,10):-1;if(left===0||e.cause==="PAYLINK_DEPLETED")m=errs.SOLD_OUT;if(e.cause==="HOLD_LIMIT_REACHED")m=errs.HOLD_LIMIT_REACHED;return m}
function fields(){var r=rail(),name=r?r.value:"";all("[data-field]").forEach(function(f){var rule=f.getAttribute("data-rule"),rails=f.getAttribute("data-rails").split(" ");
var need=rule==="REQUIRED"||rails.indexOf(name)>=0;f.hidden=rule==="HIDDEN"&&!need;var i=f.querySelector("input,textarea");i.required=need;var o=f.querySelector("[data-opt]");if(o)o.hidden=need})}
function clock(s){var m=Math.floor(s/60),x=s%60;return m+":"+(x<10?"0":"")+x}
function tickLock(){var el=$("lock");if(!lock){el.hidden=true;return}var s=Math.max(0,Math.round((lock.until-Date.now())/1000));
if(s<=0){lock=null;el.hidden=true;relock();return}show(el,ds.locked.replace("{t}",clock(s)))}
function rateOf(r){if(lock&&lock.rail===r.value)return parseFloat(lock.rate);return parseFloat(r.getAttribute("data-rate"))}
function render(){var sub=subtotal(),disc=discount(sub),tot=sub-disc;$("sub").textContent=fmt(sub,cur);
$("disc-row").hidden=!disc;$("disc").textContent=disc?"−"+fmt(disc,cur):"";
all("input[name=rail]").forEach(function(r){var rate=rateOf(r),to=r.getAttribute("data-to");var el=d.querySelector('[data-railprice="'+r.value+'"]');
el.textContent=tot>0&&rate?fmt(up(tot*rate,to),to):"—"});
var r=rail();$("tot").textContent=r&&tot>0&&rateOf(r)?fmt(up(tot*rateOf(r),r.getAttribute("data-to")),r.getAttribute("data-to")):"—";
$("pay").disabled=busy||tot<=0||!r;tickLock()}
function post(path,body){return fetch(path,{method:"POST",headers:{"content-type":"application/json",accept:"application/json"},body:JSON.stringify(body)})
.then(function(res){return res.json().then(function(j){return{status:res.status,body:j}},function(){return{status:res.status,body:null}})})}
function relock(){var r=rail();if(!r||subtotal()<=0)return Promise.resolve(null);var name=r.value;
return post("/v1/paylinks/"+encodeURIComponent(slug)+"/rate-lock",{paymentMethod:name}).then(function(a){
if(a.status===201){lock={id:a.body.data.rateLockId,rate:a.body.data.rate,rail:name,until:Date.now()+Math.max(0,new Date(a.body.data.expiresAt).getTime()-Date.now()-2000)};render()}return lock},function(){return null})}
all("[data-prod]").forEach(function(p){var q=p.querySelector("[data-q]");if(!q)return;var max=parseInt(p.getAttribute("data-max"),10)||0;
function set(n){n=Math.max(0,Math.min(max,n|0));q.value=String(n);render();if(!lock&&subtotal()>0)relock()}
p.querySelector("[data-inc]").addEventListener("click",function(){set((parseInt(q.value,10)||0)+1)});
p.querySelector("[data-dec]").addEventListener("click",function(){set((parseInt(q.value,10)||0)-1)});
q.addEventListener("change",function(){set(parseInt(q.value,10)||0)})});
if(chosen)chosen.addEventListener("input",function(){render()});
all("input[name=rail]").forEach(function(r){r.addEventListener("change",function(){lock=null;fields();render();relock()})});
var apply=$("apply");if(apply)apply.addEventListener("click",function(){var code=$("promo").value.trim();show($("promo-ok"),"");show($("promo-err"),"");
if(!code){promo=null;render();return}var body={code:code},it=items();if(it.length)body.items=it;
post("/v1/pay/link/"+encodeURIComponent(slug)+"/apply-promo",body).then(function(a){
if(a.status===200){promo=a.body.data;render();var dd=discount(subtotal());show($("promo-ok"),ds.applied.replace("{d}",dd?fmt(dd,cur):(promo.discountType==="PERCENT"?promo.discountValue+" %":fmt(parseFloat(promo.discountValue),cur))))}
else{promo=null;render();show($("promo-err"),message(a.body))}})});
function value(name){var el=form.querySelector("[name="+name+"]");var f=el&&el.closest("[data-field]");return el&&!(f&&f.hidden)?el.value.trim():""}
function submit(retry){var it=items();if(!it.length){err(errs.EMPTY);return}var r=rail();
var body={items:it,paymentMethod:r.value};if(promo)body.promoCode=promo.code;if(lock&&lock.rail===r.value&&lock.until>Date.now())body.rateLockId=lock.id;
if(chosenValue())body.amount=chosenValue();
["customerName","customerEmail","customerPhone","customerAddress"].forEach(function(n){var v=value(n);if(v)body[n]=v});
busy=1;render();$("pay").textContent=ds.paying;err("");
post("/v1/pay/link/"+encodeURIComponent(slug)+"/checkout",body).then(function(a){
if(a.status===201){location.href="/checkout/"+a.body.data.transactionId+"?lang="+lang;return}
var code=a.body&&a.body.error&&a.body.error.code;
if(!retry&&code&&code.indexOf("RATE_LOCK_")===0){lock=null;relock().then(function(){submit(true)});return}
if(code&&code.indexOf("PROMO_CODE_")===0){promo=null;show($("promo-ok"),"")}
busy=0;$("pay").textContent=$("pay").getAttribute("data-label");render();err(message(a.body))},function(){busy=0;render();err(errs.OTHER)})}
$("pay").setAttribute("data-label",$("pay").textContent);
form.addEventListener("submit",function(e){e.preventDefault();if(!busy)submit(false)});
fields();render();setInterval(tickLock,1000);
})();`;
