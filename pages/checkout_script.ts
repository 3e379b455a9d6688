// The checkout page's only script, inlined with the CSP nonce: a countdown, copy buttons, the SMS code
// form sent as JSON, and a poll of /checkout/:id/status every 2.5 s that swaps the server-rendered views
// until a final state. Plain ES5 so old phone browsers run it; everything it shows was rendered (and
// translated) by the server. A mobile money pay-in whose code was accepted stays "processing" while the
// status still says "waiting" (AWAITING_PAYMENT lasts until the operator's callback).
export const CHECKOUT_SCRIPT = `(function(){
var d=document,root=d.getElementById("co");if(!root)return;
var ds=root.dataset,left=+ds.left,phase=ds.at,final=ds.final==="1",timer=0,busy=0,xof=ds.cur==="XOF";
function all(s){return Array.prototype.slice.call(d.querySelectorAll(s))}
function show(p){phase=p;all("[data-phase]").forEach(function(e){e.hidden=e.getAttribute("data-phase").split(" ").indexOf(p)<0});if(p==="paid"){if(ds.reload&&!ds.redir){ds.redir="1";location.reload()}else redirect()}}
function redirect(){var a=d.getElementById("succ");if(a&&!ds.redir){ds.redir="1";setTimeout(function(){location.href=a.href},8000)}}
function pad(n){return(n<10?"0":"")+n}
function clock(s){var h=Math.floor(s/3600),m=Math.floor(s%3600/60);return(h?h+":"+pad(m):pad(m))+":"+pad(s%60)}
function tick(){if(left>0)left--;var s=Math.max(0,left);all("[data-cd]").forEach(function(e){e.textContent=clock(s)});
if(left<=0&&phase==="waiting")show("expired")}
function amt(a){var p=String(a).split("."),f=(p[1]||"").replace(/0+$/,"");while(f.length<2)f+="0";return p[0]+"."+f}
function put(sel,v){all(sel).forEach(function(e){if("value"in e&&e.tagName==="PROGRESS")e.value=v;else e.textContent=v})}
function poll(){if(final||busy)return;busy=1;
fetch(ds.status,{cache:"no-store",headers:{accept:"application/json"}}).then(function(r){return r.ok?r.json():null}).then(function(s){busy=0;if(!s)return;
left=s.secondsLeft;if(s.confirmations!==undefined){put("[data-conf]",s.confirmations);put("[data-req]",s.required)}
if(!xof)put("[data-recv]",amt(s.amountReceived));
if(s.reason!==undefined)all("[data-reason]").forEach(function(e){e.hidden=e.getAttribute("data-reason")!==s.reason});
if(s.phase!==phase&&!(phase==="processing"&&s.phase==="waiting"))show(s.phase);if(s.final){final=true;clearInterval(timer)}}).catch(function(){busy=0})}
function copied(b,ok){var t=b.textContent;b.textContent=ok?ds.copied:ds.failed;b.className+=ok?" ok":"";
setTimeout(function(){b.textContent=t;b.className=b.className.replace(" ok","")},2000)}
function fallback(b,src){var ok=false;try{var r=d.createRange();r.selectNodeContents(src);var sel=getSelection();sel.removeAllRanges();sel.addRange(r);ok=d.execCommand("copy")}catch(e){}copied(b,ok)}
all("button[data-copy]").forEach(function(b){b.hidden=false;b.addEventListener("click",function(){
var src=d.getElementById(b.getAttribute("data-copy")),text=src.textContent;
if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(text).then(function(){copied(b,true)},function(){fallback(b,src)})}else fallback(b,src)})});
var f=d.getElementById("otpf");
function err(code){var hit=0;all("[data-err]").forEach(function(e){var on=e.getAttribute("data-err")===code;e.hidden=!on;hit=hit||on});
if(!hit){f.submit();return}var i=d.getElementById("otp");i.value="";i.focus()}
if(f)f.addEventListener("submit",function(ev){ev.preventDefault();var b=f.querySelector("button"),code=d.getElementById("otp").value.replace(/\\s+/g,"");
if(b.disabled)return;b.disabled=true;
fetch(f.action,{method:"POST",cache:"no-store",headers:{"content-type":"application/json",accept:"application/json"},body:JSON.stringify({otp:code})})
.then(function(r){return r.json().then(function(j){return{ok:r.ok,j:j}})}).then(function(x){b.disabled=false;
if(x.ok){all("[data-err]").forEach(function(e){e.hidden=true});show("processing");poll()}else err(x.j&&x.j.error&&x.j.error.code)},
function(){b.disabled=false;f.submit()})});
setInterval(tick,1000);if(phase==="paid")redirect();
if(!final){timer=setInterval(poll,2500)}
})();`;
