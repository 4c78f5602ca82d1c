// Renders Markdown the way readers' sites do and reads the rendered pages back.
//
// Input (a JSON file named on the command line): {"outdir": DIR, "jobs": [{"name", "markdown",
// "pipeline"}], "screenshots": {name: {"path", "top", "height"}}}. Pipelines:
//   texmath-dollars  markdown-it + markdown-it-texmath ($$ and $) + KaTeX       (katex flavour)
//   texmath-gitlab   markdown-it + markdown-it-texmath (```math and $`..`$)    (github flavour)
//   autorender       CommonMark (markdown-it) first, then KaTeX auto-render    (katex flavour)
//   pandoc-mathjax   pandoc --mathjax with MathJax 3's tex-mml-chtml.js        (both flavours;
//                    for github, a Lua filter reads ```math and $`..`$ as GitHub does)
//   jupyterlab       a notebook's Markdown output as JupyterLab draws it: math taken out,
//                    markdown-it, math put back, MathJax 3 (jupyter-math.js) (katex flavour)
// Every page is loaded in one headless Chromium (puppeteer-core, Debian's /usr/bin/chromium).
// Output on stdout: {name: {errors: [...], tex: [...], displays: [{words, delims}], em, injected,
// wide}} (wide: the math whose glyphs reach past the text column, by how many pixels) where
// words are the rendered glyphs grouped into words with their boxes, and delims the boxes of
// the delimiters (\left[ ... \right]) of each display.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const puppeteer = require("puppeteer-core");
const katex = require("katex");
const MarkdownIt = require("markdown-it");
const texmath = require("markdown-it-texmath");
const jupyter = require("./jupyter-math");

const HERE = __dirname;
const KATEX = path.join(HERE, "node_modules", "katex", "dist");
const MATHJAX = path.join(HERE, "node_modules", "mathjax", "es5", "tex-mml-chtml.js");
const FILTER = path.join(HERE, "gitlab-math.lua");
const KATEX_OPTIONS = { throwOnError: false, strict: "error", output: "htmlAndMathml" };

function page(title, head, body) {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title>${head}
<style>body{font-family:serif;max-width:900px;margin:24px auto;padding:0 16px;background:#fff}</style>
</head><body>${body}</body></html>`;
}

const katexHead = `<link rel="stylesheet" href="file://${KATEX}/katex.min.css">`;

function html(job) {
  if (job.pipeline === "texmath-dollars" || job.pipeline === "texmath-gitlab") {
    const md = new MarkdownIt().use(texmath, {
      engine: katex, delimiters: job.pipeline === "texmath-dollars" ? "dollars" : "gitlab",
      katexOptions: { ...KATEX_OPTIONS },
    });
    return page(job.name, katexHead, md.render(job.markdown));
  }
  if (job.pipeline === "autorender") {
    const body = new MarkdownIt("commonmark").render(job.markdown);
    const script = `<script src="file://${KATEX}/katex.min.js"></script>
<script src="file://${KATEX}/contrib/auto-render.min.js"></script>
<script>renderMathInElement(document.body, {delimiters: [
  {left: "$$", right: "$$", display: true}, {left: "$", right: "$", display: false}],
  throwOnError: false, strict: "error", output: "htmlAndMathml",
  errorCallback: (msg, err) => { window.attnErrors.push(String(err)); }});</script>`;
    return page(job.name, katexHead + "<script>window.attnErrors = [];</script>",
                body + script);
  }
  if (job.pipeline === "pandoc-mathjax") {
    const from = job.flavor === "github" ? ["-f", "gfm", "--lua-filter", FILTER]
                                         : ["-f", "markdown"];
    return execFileSync("pandoc", [...from, "-t", "html5", "-s", "--metadata", "title=attn",
                                   `--mathjax=file://${MATHJAX}`],
                        { input: job.markdown, encoding: "utf8", maxBuffer: 1 << 28 });
  }
  if (job.pipeline === "jupyterlab") {
    const { text, math } = jupyter.takeMath(job.markdown);
    const body = jupyter.putMath(new MarkdownIt().render(text), math);
    const config = `<script>window.MathJax = ${JSON.stringify(jupyter.MATHJAX_CONFIG)};</script>`;
    return page(job.name, config + `<script src="file://${MATHJAX}"></script>`, body);
  }
  throw new Error(`unknown pipeline ${job.pipeline}`);
}

// Runs in the page: errors, the TeX each engine read, and the rendered glyphs of each display.
function measure() {
  const errors = [...(window.attnErrors || [])];
  // the em of the text the math stands in (a site's content may be set smaller or larger than
  // its body: Material's body is 0.5rem, its articles 0.8rem)
  const host = document.querySelector(".katex-display, .katex, mjx-container");
  const em = parseFloat(getComputedStyle(host ? host.parentElement : document.body).fontSize);
  const glyphsOf = (root) => {
    const out = [];
    const push = (ch, r) => { if (r.width > 0 || r.height > 0) out.push({ ch, l: r.left, r: r.right, t: r.top, b: r.bottom }); };
    if (root.tagName.toLowerCase().startsWith("mjx")) {
      // MathJax draws each character's glyph box; a token element (mjx-mn "1.00") spans them
      for (const el of root.querySelectorAll("mjx-mn, mjx-mi, mjx-mo, mjx-mtext, mjx-ms")) {
        if (el.closest("mjx-assistive-mml")) continue;
        let text = "";
        for (const c of el.querySelectorAll("mjx-c, mjx-utext")) {
          if (c.tagName.toLowerCase() === "mjx-utext") { text += c.textContent; continue; }
          const cls = [...c.classList].find((k) => /^mjx-c[0-9A-F]+$/.test(k));
          if (cls) text += String.fromCodePoint(parseInt(cls.slice(5), 16));
        }
        if (text.trim()) push(text, el.getBoundingClientRect());
      }
    } else {
      const html = root.querySelector(".katex-html") || root;
      const walker = document.createTreeWalker(html, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        let i = 0;
        for (const ch of text) {
          const range = document.createRange();
          range.setStart(node, i); range.setEnd(node, i + ch.length);
          i += ch.length;
          if (ch.trim() === "" || ch === "\u200b") continue;
          push(ch, range.getBoundingClientRect());
        }
      }
    }
    return out;
  };
  const wordsOf = (glyphs) => {
    // glyphs side by side (a gap under 0.12em) that overlap vertically make one word
    glyphs.sort((a, b) => a.l - b.l);
    const words = [];
    for (const g of glyphs) {
      const w = words.find((w) => g.l - w.r < 0.12 * em && g.l >= w.r - 0.05 * em
                                  && g.t < w.b && g.b > w.t);
      if (w) {
        w.text += g.ch; w.r = Math.max(w.r, g.r); w.t = Math.min(w.t, g.t); w.b = Math.max(w.b, g.b);
      } else {
        words.push({ text: g.ch, l: g.l, r: g.r, t: g.t, b: g.b });
      }
    }
    for (const w of words) w.mid = (w.t + w.b) / 2;
    return words;
  };
  const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
  let displays = [], tex = [];
  const katexRoots = [...document.querySelectorAll(".katex")];
  for (const el of document.querySelectorAll(".katex-error")) errors.push("katex-error: " + el.getAttribute("title"));
  if (window.MathJax && MathJax.startup && MathJax.startup.document) {
    for (const item of MathJax.startup.document.math) {
      const mml = MathJax.startup.toMML(item.root);
      if (/<merror/.test(mml) || /mathcolor="red"/.test(mml)) errors.push("mathjax: " + item.math + "\n" + mml.slice(0, 2000));
      tex.push({ tex: item.math, display: item.display });
    }
    for (const el of document.querySelectorAll("mjx-merror")) errors.push("mjx-merror: " + el.textContent);
    for (const c of document.querySelectorAll('mjx-container[display="true"]')) {
      const delims = [...c.querySelectorAll("mjx-mo")].map(box);
      displays.push({ words: wordsOf(glyphsOf(c)), delims, box: box(c) });
    }
  } else {
    for (const el of katexRoots) {
      const ann = el.querySelector('annotation[encoding="application/x-tex"]');
      tex.push({ tex: ann ? ann.textContent : null, display: !!el.closest(".katex-display") });
    }
    for (const c of document.querySelectorAll(".katex-display > .katex")) {
      // a delimiter's glyphs (or SVG pieces) reach beyond its span's line box
      const delims = [...c.querySelectorAll(".katex-html .mopen, .katex-html .mclose")].map((el) => {
        const parts = [...glyphsOf(el), ...[...el.querySelectorAll("svg")].map((s) => {
          const r = s.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom };
        })];
        if (!parts.length) return box(el);
        return { l: Math.min(...parts.map((p) => p.l)), r: Math.max(...parts.map((p) => p.r)),
                 t: Math.min(...parts.map((p) => p.t)), b: Math.max(...parts.map((p) => p.b)) };
      });
      displays.push({ words: wordsOf(glyphsOf(c)), delims, box: box(c.parentElement) });
    }
    // math the engine never saw is still there as source text
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest(".katex, script, style, code, pre")) continue;
      if (/\\(begin|end)\{|\$\$/.test(node.textContent)) errors.push("unrendered: " + node.textContent.slice(0, 200));
    }
  }
  // math that runs past the text column (the body's content box): the right edge of its glyphs
  const bodyStyle = getComputedStyle(document.body);
  const column = document.body.getBoundingClientRect().right - parseFloat(bodyStyle.paddingRight);
  const wide = [];
  for (const el of document.querySelectorAll("mjx-container, .katex")) {
    if (el.parentElement.closest("mjx-container, .katex")) continue;
    const glyphs = glyphsOf(el);
    if (!glyphs.length) continue;
    const right = Math.max(...glyphs.map((g) => g.r));
    if (right > column + 2) wide.push({ past: Math.round(right - column), text: el.textContent.slice(0, 120) });
  }
  // markup a token name could have injected: links, images, raw HTML
  const injected = [...document.querySelectorAll("body a, body img, body b, body i, body u, body script:not([src])")]
    .filter((el) => !el.closest(".katex, mjx-container") && !/renderMathInElement|attnErrors/.test(el.textContent))
    .map((el) => el.outerHTML.slice(0, 200));
  return { errors, tex, displays, em, injected, wide };
}

// A job with "file" instead of "markdown" loads a page already built (the MkDocs site).
async function load(tab, job, i, input) {
  const file = job.file || path.join(input.outdir, `page-${i}.html`);
  const t0 = Date.now();
  if (!job.file) fs.writeFileSync(file, html(job));
  const t1 = Date.now();
  await tab.goto("file://" + file, { waitUntil: "load", timeout: 600000 });
  if (job.pipeline === "pandoc-mathjax" || job.pipeline === "jupyterlab") {
    await tab.waitForFunction("!!(window.MathJax && MathJax.startup && MathJax.startup.promise)", { timeout: 600000 });
    await tab.evaluate("MathJax.startup.promise.then(() => true)");
  }
  await tab.evaluate("document.fonts.ready.then(() => true)");
  const t2 = Date.now();
  const result = await tab.evaluate(measure);
  if (process.env.ATTN_RENDER_TIMES) console.error(job.name, t1 - t0, t2 - t1, Date.now() - t2);
  const shot = (input.screenshots || {})[job.name];
  if (shot) {  // {path, top, height}: a part of the page, from the heading numbered `top`
    const y = shot.top ? await tab.evaluate((n) => {
      const h = [...document.querySelectorAll("h1, h2, h3, h4")].find((e) => e.textContent.startsWith(n + "."));
      return h ? h.getBoundingClientRect().top + window.scrollY - 8 : 0;
    }, shot.top) : 0;
    await tab.screenshot({ path: shot.path, clip: { x: 0, y, width: 980, height: shot.height || 900 },
                           captureBeyondViewport: true });
  }
  return result;
}

async function main() {
  const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  fs.mkdirSync(input.outdir, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    protocolTimeout: 900000,  // a loaded CI machine is slow, never wrong
    userDataDir: fs.mkdtempSync(path.join(input.outdir, "profile-")),
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--allow-file-access-from-files", "--font-render-hinting=none"],
  });
  const results = {};
  try {
    const next = { i: 0 };
    const worker = async () => {
      const tab = await browser.newPage();
      await tab.setViewport({ width: 980, height: 800, deviceScaleFactor: 1 });
      while (next.i < input.jobs.length) {
        const i = next.i++;
        results[input.jobs[i].name] = await load(tab, input.jobs[i], i, input);
      }
    };
    await Promise.all([worker(), worker()]);  // CI has two cores
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((err) => { console.error(err); process.exit(1); });
