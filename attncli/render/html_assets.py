"""The HTML page's style sheet and script, written into every page (nothing is fetched).

Both are scoped to their block: every selector starts at `.attn`, the script is one function
that finds its own block (the element around it) and listens only there (a page of its own
also listens for its keys on the document), so two blocks pasted into one post do not meet.
"""

STYLE = """
.attn{--fg:#1f2328;--bg:#fff;--muted:#59636e;--line:#d1d9e0;--heat:9,105,218;--on:#bf8700;
--src:#fff8c5;color:var(--fg);background:var(--bg);font:16px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans",sans-serif;max-width:64rem;margin:0 auto;padding:.5rem 1rem;
box-sizing:border-box;text-align:left}
@media (prefers-color-scheme:dark){.attn{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;
--line:#3d444d;--heat:88,166,255;--on:#e3b341;--src:#3a2f0b}}
.attn *{box-sizing:border-box}.attn .attn-step,.attn td{scroll-margin-top:4rem}
.attn h1{font-size:1.6rem;margin:.5rem 0}.attn h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
.attn h3{font-size:1rem;margin:0 0 .5rem}
.attn p{margin:.5rem 0}.attn .attn-facts{color:var(--muted);padding-left:1.2rem}
.attn .attn-keys{color:var(--muted);font-size:.85rem}
.attn .attn-nav{position:sticky;top:0;z-index:1;display:flex;gap:.5rem;align-items:center;
justify-content:space-between;background:var(--bg);border-bottom:1px solid var(--line);
padding:.4rem 0}
.attn button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);
border-radius:6px;padding:.3rem .7rem;cursor:pointer;min-height:2.5rem}
.attn button[aria-selected=true]{border-color:var(--fg);font-weight:600}
.attn .attn-langs{display:flex;gap:.4rem;justify-content:flex-end}
.attn .attn-formula{overflow-x:auto;font-size:1.15rem}
.attn .attn-work{display:grid;grid-template-columns:minmax(0,1fr) minmax(12rem,20rem);gap:1rem;
align-items:start}
@media (max-width:48rem){.attn .attn-work{grid-template-columns:minmax(0,1fr)}}
.attn .attn-matrix{margin:0 0 1rem;overflow-x:auto}
.attn table{border-collapse:collapse;font-variant-numeric:tabular-nums}
.attn caption{text-align:left;padding:.2rem 0;color:var(--muted)}
.attn caption math{color:var(--fg);font-size:1.1rem}
.attn th{font-weight:400;color:var(--muted);padding:.15rem .5rem;text-align:right;
white-space:pre}
.attn thead th{text-align:right}
.attn td{padding:.15rem .5rem;text-align:right;white-space:nowrap}
.attn td.attn-n{cursor:pointer;border-radius:3px}
.attn td.attn-n:hover{outline:1px solid var(--line)}
.attn td.attn-n:focus-visible{outline:2px solid var(--fg);outline-offset:-2px}
.attn td.attn-gap{color:var(--muted);text-align:center}
.attn .attn-heat td.attn-n{background:rgba(var(--heat),var(--w,0));
-webkit-print-color-adjust:exact;print-color-adjust:exact}
.attn .attn-heat td.attn-deep{color:#fff}
.attn .attn-heat td.attn-hidden{background:repeating-linear-gradient(45deg,var(--line) 0 3px,
transparent 3px 6px);color:var(--muted)}
.attn td.attn-src{background:var(--src);box-shadow:inset 0 0 0 2px var(--on)}
.attn td.attn-on{box-shadow:inset 0 0 0 3px var(--on);font-weight:700}
.attn figcaption{color:var(--muted);font-size:.85rem}
.attn .attn-why{position:sticky;top:3.6rem;border:1px solid var(--line);border-radius:6px;
padding:.6rem .8rem;font-size:.9rem;min-width:0}
.attn .attn-why ol{margin:0;padding-left:1.2rem}
.attn code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",
monospace;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere}
.attn .attn-hint{color:var(--muted)}
.attn details{margin:.5rem 0}.attn summary{cursor:pointer;color:var(--muted)}
@media print{.attn .attn-nav,.attn .attn-keys,.attn .attn-langs,.attn .attn-why{display:none}
.attn .attn-work{display:block}.attn{max-width:none;color:#000;background:#fff}
.attn .attn-step,.attn table{break-inside:avoid}.attn td.attn-src,.attn td.attn-on{
box-shadow:none;background:none}}
"""

SCRIPT = """
(function(){
var root=document.currentScript.parentElement,page=document.body.classList.contains("attn-page");
var all=function(s,e){return Array.prototype.slice.call((e||root).querySelectorAll(s));};
var shown=function(){return root.querySelector(".attn-lang:not([hidden])");};
var steps=function(){return all(".attn-step",shown());};
var current=0;
function mark(k){current=k;var at=shown().querySelector(".attn-at"),s=steps()[k];
if(at&&s){at.textContent=at.getAttribute("data-of").replace("#",s.getAttribute("data-step"));}}
function place(h){if(history.replaceState){history.replaceState(null,"","#"+h);}}
function go(k){var s=steps();if(!s.length)return;k=Math.max(0,Math.min(s.length-1,k));
s[k].scrollIntoView({block:"start"});s[k].querySelector("h2").focus({preventScroll:true});
place(s[k].id);mark(k);}
function clear(){all(".attn-on,.attn-src").forEach(function(c){c.classList.remove("attn-on",
"attn-src");});}
function explain(td){var sec=td.closest(".attn-step"),why=sec.querySelector(".attn-why");
clear();td.classList.add("attn-on");mark(steps().indexOf(sec));
var lines=all(".attn-lines li",sec),want=(td.getAttribute("data-lines")||"").split(" ");
why.textContent="";var h=document.createElement("h3");h.textContent=td.getAttribute("aria-label");
why.appendChild(h);var ol=document.createElement("ol");
want.forEach(function(k){if(k!==""&&lines[+k]){ol.appendChild(lines[+k].cloneNode(true));}});
if(ol.children.length){why.appendChild(ol);}else{var p=document.createElement("p");
p.className="attn-hint";p.textContent=why.getAttribute("data-empty");why.appendChild(p);}
var r=td.getAttribute("data-r"),c=td.getAttribute("data-c"),base=sec.id.replace(/s\\d+$/,"");
(td.closest("figure").getAttribute("data-from")||"").split(" ").forEach(function(f){
if(!f)return;var p=f.split("."),fig=document.getElementById(base+"s"+p[0]+"m"+p[1]);if(!fig)return;
all("td.attn-n",fig).forEach(function(x){var xr=x.getAttribute("data-r"),
xc=x.getAttribute("data-c");if((p[2]==="row"&&xr===r)||(p[2]==="column"&&xc===c)||
(p[2]==="row_of_column"&&xr===c)||(p[2]==="cell"&&xr===r&&xc===c)){x.classList.add("attn-src");}
});});
if(root.querySelector(".attn-src")){var n=document.createElement("p");n.className="attn-hint";
n.textContent=shown().getAttribute("data-made-from");why.appendChild(n);}
place(sec.id+"/"+encodeURIComponent(td.getAttribute("data-cell")));}
function move(td,dr,dc){var tr=td.parentElement,cells=Array.prototype.slice.call(tr.children),
k=cells.indexOf(td),rows=Array.prototype.slice.call(tr.parentElement.children),
i=rows.indexOf(tr)+dr,row=rows[i];if(!row)return;var t=row.children[k+dc];
if(t&&t.classList.contains("attn-n")){t.focus();}}
root.addEventListener("click",function(e){var td=e.target.closest("td.attn-n");
if(td&&root.contains(td)){explain(td);return;}
var b=e.target.closest("button[data-go]");if(b){go(current+(+b.getAttribute("data-go")));return;}
var l=e.target.closest("button[data-lang]");if(l){language(l.getAttribute("data-lang"));}});
root.addEventListener("keydown",function(e){var td=e.target.closest&&e.target.closest("td.attn-n");
if(!td)return;var k={ArrowUp:[-1,0],ArrowDown:[1,0],ArrowLeft:[0,-1],ArrowRight:[0,1]}[e.key];
if(k){move(td,k[0],k[1]);e.preventDefault();e.stopPropagation();}
else if(e.key==="Enter"||e.key===" "){explain(td);e.preventDefault();}
else if(e.key==="Escape"){clear();}});
(page?document:root).addEventListener("keydown",function(e){
if(e.altKey||e.ctrlKey||e.metaKey||/^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName))return;
if(e.key==="n"){go(current+1);}else if(e.key==="p"){go(current-1);}});
function language(lang){var at=steps()[current];all(".attn-lang").forEach(function(d){
d.hidden=d.getAttribute("data-lang")!==lang;});all("button[data-lang]").forEach(function(b){
b.setAttribute("aria-selected",String(b.getAttribute("data-lang")===lang));});
var k=at?steps().findIndex(function(s){return s.getAttribute("data-step")===
at.getAttribute("data-step");}):0;mark(Math.max(k,0));}
function follow(){var h=decodeURIComponent(location.hash.slice(1));
if(h.indexOf(root.id+"-")!==0)return;var lang=h.slice(root.id.length+1).split("-")[0];
if(root.querySelector('.attn-lang[data-lang="'+lang+'"]'))language(lang);
var slash=h.indexOf("/"),sec=document.getElementById(slash<0?h:h.slice(0,slash));
if(!sec||!root.contains(sec))return;var k=steps().indexOf(sec);if(k>=0)mark(k);
if(slash<0){sec.scrollIntoView();return;}var name=h.slice(slash+1);
var td=all("td.attn-n",sec).filter(function(x){return x.getAttribute("data-cell")===name;})[0];
if(td){explain(td);td.focus();}}
window.addEventListener("hashchange",follow);mark(0);follow();
})();
"""
