// Opens the HTML export's pages in headless Chromium the way a reader does and reads them back.
//
// Input (a JSON file named on the command line): {"outdir": DIR, "jobs": [{"name", "path",
// "actions": [{"how": "click" | "enter", "step": "7", "cell": "A[chases, cat]", "block": 0}],
// "hash": "attn-en-s7/A%5B...%5D" (optional: the page is opened again at it)}],
// "screenshots": {name: {"path", "width", "height", "dark", "action"}}}.
// Every request the page makes is recorded and refused but the page's own file; every console
// error and uncaught exception is recorded. A "click" clicks the cell; an "enter" focuses it
// with Tab from the cell before it (or focus(), for the first of a row) and presses Enter.
// Output on stdout: {name: {errors, requests, focusable, cells, actions: [{on, title, lines,
// sources, hash}], next_hash, at_hash}}.
"use strict";
const fs = require("fs");
const path = require("path");
const puppeteer = require("puppeteer-core");

async function read(tab, block) {
  return tab.evaluate((block) => {
    const root = document.querySelectorAll(".attn")[block];
    const on = root.querySelector("td.attn-on");
    const sec = on ? on.closest(".attn-step") : null;
    const why = sec ? sec.querySelector(".attn-why") : null;
    return {
      on: on ? on.getAttribute("data-cell") : null,
      focused: document.activeElement ? document.activeElement.getAttribute("data-cell") : null,
      title: why && why.querySelector("h3") ? why.querySelector("h3").textContent : null,
      lines: why ? [...why.querySelectorAll("li")].map((li) => li.textContent) : [],
      hints: why ? [...why.querySelectorAll("p")].map((p) => p.textContent) : [],
      sources: [...root.querySelectorAll("td.attn-src")].map((td) =>
        td.closest(".attn-step").getAttribute("data-step") + ":" + td.getAttribute("data-cell")),
      outside: [...document.querySelectorAll("td.attn-src, td.attn-on")].filter(
        (td) => !root.contains(td)).length,
      hash: decodeURIComponent(location.hash.slice(1)),
    };
  }, block);
}

async function act(tab, action) {
  const selector = `.attn-lang:not([hidden]) .attn-step[data-step="${action.step}"] ` +
    `td.attn-n[data-cell="${CSS_escape(action.cell)}"]`;
  const blocks = await tab.$$(".attn");
  const cell = await blocks[action.block || 0].$(selector);
  if (!cell) return { missing: action.cell };
  if (action.how === "click") {
    await cell.click();
  } else {  // the cell before it focused, then Tab to it, as a keyboard reaches it
    const before = await cell.evaluateHandle((td) => td.previousElementSibling);
    const reached = await before.evaluate((td) => {
      if (td && td.classList.contains("attn-n")) { td.focus(); return true; }
      return false;
    });
    if (reached) await tab.keyboard.press("Tab"); else await cell.focus();
    await tab.keyboard.press("Enter");
  }
  return read(tab, action.block || 0);
}

function CSS_escape(text) {
  return text.replace(/["\\]/g, (c) => "\\" + c);
}

async function load(tab, job) {
  const errors = [];
  const requests = [];
  const own = "file://" + path.resolve(job.path);
  tab.removeAllListeners("console");
  tab.removeAllListeners("pageerror");
  tab.removeAllListeners("request");
  tab.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
  tab.on("pageerror", (err) => errors.push(String(err)));
  tab.on("request", (request) => {
    const url = request.url().split("#")[0];
    if (url === own) { request.continue(); return; }
    requests.push(request.url());
    request.abort();
  });
  await tab.goto(own, { waitUntil: "load" });
  const facts = await tab.evaluate(() => ({
    cells: document.querySelectorAll("td.attn-n").length,
    focusable: [...document.querySelectorAll("td.attn-n")].filter((td) => td.tabIndex === 0).length,
    labelled: [...document.querySelectorAll("td.attn-n")].filter(
      (td) => (td.getAttribute("aria-label") || "").startsWith(td.getAttribute("data-cell"))).length,
    mathml: [...document.querySelectorAll("math")].filter(
      (m) => m.getBoundingClientRect().width > 0).length,
    math: document.querySelectorAll("math").length,
    // notation in the prose (a note, a header fact, a reading): its paragraph's text, and
    // whether a subscript is drawn below its base (null where the step is not shown)
    prose: [...document.querySelectorAll("p:not(.attn-formula) > math, li > math")].map((m) => {
      const sub = m.querySelector("msub");
      const low = sub && sub.getBoundingClientRect().width > 0
        ? sub.children[1].getBoundingClientRect().bottom
          > sub.children[0].getBoundingClientRect().bottom : null;
      return { text: m.textContent, paragraph: m.parentElement.textContent, low };
    }),
    width: document.documentElement.scrollWidth,
  }));
  const actions = [];
  for (const action of job.actions || []) actions.push(await act(tab, action));
  // "n" walks to the next step: the fragment names it
  await tab.evaluate(() => document.activeElement && document.activeElement.blur());
  await tab.keyboard.press("n");
  const nextHash = await tab.evaluate(() => decodeURIComponent(location.hash.slice(1)));
  let atHash = null;
  if (job.hash) {
    await tab.goto(own + "#" + job.hash, { waitUntil: "load" });
    atHash = await read(tab, 0);
  }
  return { errors, requests, ...facts, actions, next_hash: nextHash, at_hash: atHash };
}

async function main() {
  const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  fs.mkdirSync(input.outdir, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    protocolTimeout: 900000,
    userDataDir: fs.mkdtempSync(path.join(input.outdir, "profile-")),
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--font-render-hinting=none"],
  });
  const results = {};
  try {
    const next = { i: 0 };
    const worker = async () => {
      const tab = await browser.newPage();
      await tab.setRequestInterception(true);
      await tab.setViewport({ width: 1100, height: 900, deviceScaleFactor: 1 });
      while (next.i < input.jobs.length) {
        const job = input.jobs[next.i++];
        results[job.name] = await load(tab, job);
      }
      await tab.close();
    };
    await Promise.all([worker(), worker()]);
    for (const [name, shot] of Object.entries(input.screenshots || {})) {
      const tab = await browser.newPage();
      await tab.setViewport({ width: shot.width || 1100, height: shot.height || 900,
                              deviceScaleFactor: 1, isMobile: Boolean(shot.mobile) });
      await tab.emulateMediaFeatures([{ name: "prefers-color-scheme",
                                        value: shot.dark ? "dark" : "light" }]);
      await tab.goto("file://" + path.resolve(shot.page) + (shot.hash ? "#" + shot.hash : ""),
                     { waitUntil: "load" });
      if (shot.action) await act(tab, shot.action);
      await tab.screenshot({ path: shot.path });
      await tab.close();
      results[name] = { screenshot: shot.path };
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((err) => { console.error(err); process.exit(1); });
