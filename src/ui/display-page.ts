/**
 * The customer's screen as one HTML document: inline CSS and JS (allowed by a per-response nonce),
 * no framework, nothing fetched from anywhere but its own origin's event stream. The page draws the
 * screens the display sends it (domain/display.ts `Screen`) and keeps the clock of the one waiting.
 */
import type { Lang, Screen } from '../domain/display.js';

const TEXT = {
  pt: {
    pay: 'Pague com PIX',
    scan: 'Aponte a câmera do app do seu banco para o QR code',
    copyPaste: 'PIX copia e cola',
    copy: 'Copiar código',
    copied: 'Copiado!',
    copyFailed: 'Selecione e copie o código acima',
    expiresIn: 'Expira em',
    waited: 'Aguardando há',
    paid: 'Pago!',
    thanks: 'Obrigado!',
    chainPending: 'confirmando na blockchain…',
    chainVerified: 'confirmado na blockchain',
    chainFailed: 'não confirmado na blockchain',
    failed: 'Pagamento não concluído',
    failedHint: 'Nada foi cobrado por este QR code. Fale com o caixa.',
    expired: 'Cobrança expirada',
    expiredHint: 'Este QR code não vale mais. Peça um novo ao caixa.',
    idle: 'Aguardando a próxima cobrança',
    offline: 'Sem conexão com o caixa: reconectando…',
  },
  en: {
    pay: 'Pay with PIX',
    scan: "Point your bank app's camera at the QR code",
    copyPaste: 'PIX copy and paste',
    copy: 'Copy code',
    copied: 'Copied!',
    copyFailed: 'Select and copy the code above',
    expiresIn: 'Expires in',
    waited: 'Waiting for',
    paid: 'Paid!',
    thanks: 'Thank you!',
    chainPending: 'confirming on the blockchain…',
    chainVerified: 'confirmed on the blockchain',
    chainFailed: 'not confirmed on the blockchain',
    failed: 'Payment not completed',
    failedHint: 'Nothing was charged through this QR code. Please ask at the counter.',
    expired: 'Charge expired',
    expiredHint: 'This QR code is no longer valid. Ask at the counter for a new one.',
    idle: 'Waiting for the next charge',
    offline: 'No connection to the counter: reconnecting…',
  },
} as const satisfies Record<Lang, Record<string, string>>;

/** Text for an HTML text node or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );
}

/** JSON that can sit inside a <script> data block: nothing in it can close the element or open a comment. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The Content-Security-Policy of the page: nothing but its own inline code and its own event stream. */
export function pageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const CSS = `
*{box-sizing:border-box;margin:0;padding:0}
html{color-scheme:light}
html,body{height:100%}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f4f5f7;color:#111;display:flex;flex-direction:column;overflow:hidden;-webkit-text-size-adjust:100%}
#app{flex:1;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:3vmin;gap:2vmin;min-height:0;text-align:center}
.shop{font-weight:600;font-size:clamp(18px,3.6vmin,34px);color:#444;letter-spacing:.01em;overflow-wrap:anywhere}
.amount{font-weight:800;font-size:clamp(44px,10vmin,110px);line-height:1;font-variant-numeric:tabular-nums;letter-spacing:-.02em;white-space:nowrap}
.hint{font-size:clamp(16px,2.8vmin,26px);color:#333;max-width:40ch}
.qr{background:#fff;border-radius:2vmin;box-shadow:0 1px 6px rgba(0,0,0,.15);line-height:0;width:min(86vw,52vh)}
.qr svg{width:100%;height:auto;display:block}
.code{display:flex;flex-direction:column;gap:1vmin;width:min(92vw,640px)}
.code label{font-size:clamp(13px,2vmin,18px);color:#555;font-weight:600;text-transform:uppercase;letter-spacing:.06em}
.code textarea{font:clamp(11px,1.7vmin,15px)/1.3 ui-monospace,Menlo,Consolas,monospace;width:100%;height:4.2em;resize:none;border:1px solid #c8ccd2;border-radius:8px;padding:.4em .6em;background:#fff;color:#111}
button{font:inherit;font-weight:700;font-size:clamp(16px,2.6vmin,24px);padding:.55em 1.2em;border-radius:10px;border:0;background:#0b57d0;color:#fff;cursor:pointer;min-height:48px}
button:active{background:#0842a0}
.clock{font-size:clamp(16px,2.8vmin,26px);color:#333;font-variant-numeric:tabular-nums}
.big{font-weight:800;font-size:clamp(72px,22vmin,240px);line-height:1}
.mid{font-weight:700;font-size:clamp(36px,9vmin,100px);line-height:1.1}
.tick{width:clamp(96px,26vmin,280px);height:clamp(96px,26vmin,280px);border-radius:50%;background:#fff;color:#0a7d32;display:flex;align-items:center;justify-content:center;font-size:clamp(64px,18vmin,200px);font-weight:800;line-height:1}
body.paid .hint{font-size:clamp(20px,4vmin,40px)}
.clock .left{font-weight:700}
.clock .waited{display:block;font-size:.8em;color:#555}
.chain{font-size:clamp(18px,3.4vmin,34px);font-weight:600}
body.paid{background:#0a7d32;color:#fff}
body.paid .shop,body.paid .hint{color:#e6ffe9}
body.failed{background:#a31515;color:#fff}
body.expired{background:#5b5f66;color:#fff}
body.failed .shop,body.failed .hint,body.expired .shop,body.expired .hint{color:#fff}
body.idle .shop{font-size:clamp(36px,9vmin,110px);color:#111;font-weight:800}
#net{font-size:clamp(14px,2.2vmin,20px);padding:.5em;text-align:center;background:#ffe9a8;color:#3b2a00}
#net[hidden]{display:none}
@media (orientation:landscape){
 body.waiting #app{display:grid;grid-template-columns:auto minmax(0,1fr);grid-template-rows:minmax(0,1fr);align-items:center;justify-items:center;column-gap:4vw}
 body.waiting .qr{width:min(48vw,88vh);grid-row:1}
 body.waiting .side{display:flex;flex-direction:column;align-items:center;gap:2.4vmin;min-width:0;width:100%}
 body.waiting .code{width:min(100%,640px)}
 body.waiting .amount{font-size:clamp(44px,min(10vmin,6vw),110px)}
}
@media (orientation:portrait){
 body.waiting .side{display:contents}
 body.waiting .shop{order:0}body.waiting .amount{order:1}body.waiting .qr{order:2}
 body.waiting .hint{order:3}body.waiting .code{order:4}body.waiting .clock{order:5}
 body.waiting .qr{width:min(88vw,50vh)}
}
`;

const SCRIPT = `
(function(){
'use strict';
var T=JSON.parse(document.getElementById('lbrl-text').textContent);
var state=JSON.parse(document.getElementById('lbrl-screen').textContent);
var key=new URLSearchParams(location.search).get('k')||'';
var app=document.getElementById('app');
var net=document.getElementById('net');
var offset=0,clock=null,es=null,retry=null;
function clear(node){while(node.firstChild)node.removeChild(node.firstChild);}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
function hms(ms){var s=Math.max(0,Math.floor(ms/1000));var h=Math.floor(s/3600),m=Math.floor(s%3600/60),r=s%60;return (h>0?h+':'+(m<10?'0':''):'')+m+':'+(r<10?'0':'')+r;}
function svgOf(text){var doc=new DOMParser().parseFromString(text,'image/svg+xml');var root=doc.documentElement;if(!root||root.nodeName!=='svg'||root.getElementsByTagName('script').length)return el('div');root.removeAttribute('width');root.removeAttribute('height');root.setAttribute('role','img');return document.importNode(root,true);}
function copy(text,btn){
 function done(ok){btn.textContent=ok?T.copied:T.copyFailed;setTimeout(function(){btn.textContent=T.copy;},2500);}
 function fallback(){var ta=app.querySelector('textarea');if(!ta){done(false);return;}ta.focus();ta.select();var ok=false;try{ok=document.execCommand('copy');}catch(e){}done(ok);}
 if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(text).then(function(){done(true);},fallback);}else fallback();
}
function tick(){
 if(!state||state.phase!=='waiting')return;
 var now=Date.now()+offset;var c=document.getElementById('clock');
 if(!c)return;
 clear(c);c.appendChild(el('span','left',T.expiresIn+' '+hms(state.expiresAt-now)));c.appendChild(el('span','waited',T.waited+' '+hms(now-state.createdAt)));
}
function render(){
 document.body.className=state.phase;
 clear(app);
 var shop=el('div','shop',state.shop);
 if(state.phase==='waiting'){
  document.title=state.amount+' \\u00b7 '+state.shop;
  var qr=el('div','qr');qr.setAttribute('aria-label',T.pay+' '+state.amount);qr.appendChild(svgOf(state.qrSvg));
  var side=el('div','side');
  side.appendChild(shop);
  side.appendChild(el('div','amount',state.amount));
  side.appendChild(el('div','hint',T.scan));
  var code=el('div','code');var id='lbrl-code';var lab=el('label',null,T.copyPaste);lab.htmlFor=id;
  var ta=el('textarea');ta.id=id;ta.readOnly=true;ta.value=state.qrCodeText;ta.spellcheck=false;
  var btn=el('button',null,T.copy);btn.type='button';btn.addEventListener('click',function(){copy(state.qrCodeText,btn);});
  code.appendChild(lab);code.appendChild(ta);code.appendChild(btn);
  side.appendChild(code);
  var c=el('div','clock');c.id='clock';side.appendChild(c);
  app.appendChild(qr);app.appendChild(side);tick();
 }else if(state.phase==='paid'){
  document.title=T.paid;
  var mark=el('div','tick','\\u2713');mark.setAttribute('aria-hidden','true');app.appendChild(mark);
  app.appendChild(el('div','big',T.paid));
  app.appendChild(el('div','mid',state.amount));
  if(state.chain==='pending')app.appendChild(el('div','chain',T.chainPending));
  if(state.chain==='verified')app.appendChild(el('div','chain','\\u2713 '+T.chainVerified));
  if(state.chain==='failed')app.appendChild(el('div','chain',T.chainFailed));
  app.appendChild(el('div','hint',T.thanks));
  app.appendChild(shop);
 }else if(state.phase==='failed'||state.phase==='expired'){
  document.title=T[state.phase];
  app.appendChild(el('div','mid',T[state.phase]));
  app.appendChild(el('div','amount',state.amount));
  app.appendChild(el('div','hint',T[state.phase+'Hint']));
  app.appendChild(shop);
 }else{
  document.title=state.shop;
  app.appendChild(shop);
  app.appendChild(el('div','hint',T.idle));
 }
}
function online(ok,text){net.hidden=ok;if(!ok)net.textContent=text||T.offline;}
function connect(){
 retry=null;
 es=new EventSource('/events?k='+encodeURIComponent(key));
 es.addEventListener('screen',function(e){var msg=JSON.parse(e.data);offset=msg.now-Date.now();state=msg.screen;online(true);render();});
 es.addEventListener('open',function(){online(true);});
 es.addEventListener('error',function(){
  online(false);
  // the browser reconnects by itself after a network error; after an answer it refuses, so do we
  if(es.readyState===2&&!retry){es.close();retry=setTimeout(connect,2000);}
 });
}
render();
clock=setInterval(tick,1000);
connect();
})();
`;

export interface PageOptions {
  lang: Lang;
  nonce: string;
  /** the screen to draw before the event stream says anything */
  screen: Screen;
}

/** The whole page. */
export function displayPage(options: PageOptions): string {
  const title = options.screen.shop;
  return `<!doctype html>
<html lang="${options.lang === 'pt' ? 'pt-BR' : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${options.nonce}">${CSS}</style>
</head>
<body class="idle">
<main id="app" aria-live="polite"><div class="shop">${escapeHtml(title)}</div></main>
<div id="net" role="status" hidden></div>
<script type="application/json" id="lbrl-text">${scriptJson(TEXT[options.lang])}</script>
<script type="application/json" id="lbrl-screen">${scriptJson(options.screen)}</script>
<script nonce="${options.nonce}">${SCRIPT}</script>
</body>
</html>
`;
}
