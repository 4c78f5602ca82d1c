// Markdown output as JupyterLab (and Notebook 7) draws it: the math is taken out of the text
// before the Markdown parser sees it, the rest is parsed, the math is put back (with &, <, >
// as entities) and MathJax 3 typesets the page with JupyterLab's delimiters.
//
// The rules of JupyterLab's rendermime `removeMath` (packages/rendermime/src/latex.ts), written
// again here: the text is split at `$$`, `$`, `\begin{..}`/`\end{..}`, `\{ \} \$`, braces and
// runs of line breaks; math starts at `$`, `$$` or `\begin{env}` and ends at the same delimiter
// (or `\end{env}`) once its braces balance; a blank line inside abandons it; `$` inside code
// spans and fences is not a delimiter.
"use strict";

const SPLIT = /(\$\$?|\\(?:begin|end)\{[a-z]*\*?\}|\\[{}$]|[{}]|(?:\n\s*)+|@@\d+@@)/i;

function takeMath(source) {
  const math = [];
  let text = source.replace(/\r\n?/g, "\n");
  const code = text.includes("`");
  if (code) {  // hide `$` in code from the math scan: ~D, with ~ itself written ~T
    text = text.replace(/~/g, "~T")
      .replace(/^(`{3,})[^`\n]*\n[\s\S]*?^\1`*$/gm, (m) => m.replace(/\$/g, "~D"))
      .replace(/(^|[^\\])(`+)([^\n]*?[^`\n])\2(?!`)/gm, (m) => m.replace(/\$/g, "~D"));
  }
  const untilde = (s) => (code ? s.replace(/~([TD])/g, (_, c) => (c === "T" ? "~" : "$")) : s);
  const parts = text.split(SPLIT);
  let open = -1, close = null, braces = 0, pending = -1;
  const stash = (from, to) => {
    const tex = parts.slice(from, to + 1).join("")
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    for (let k = from + 1; k <= to; k++) parts[k] = "";
    parts[from] = "@@" + math.length + "@@";
    math.push(untilde(tex));
  };
  for (let i = 1; i < parts.length; i += 2) {
    const part = parts[i];
    if (part.startsWith("@")) {  // a marker the text already had is kept as math
      parts[i] = "@@" + math.length + "@@";
      math.push(part);
    } else if (open >= 0) {
      if (part === close) {
        if (braces) { pending = i; } else { stash(open, i); open = -1; pending = -1; }
      } else if (/\n.*\n/.test(part)) {
        if (pending >= 0) { i = pending; stash(open, i); }
        open = -1; pending = -1; braces = 0;
      } else if (part === "{") {
        braces++;
      } else if (part === "}" && braces) {
        braces--;
      }
    } else if (part === "$" || part === "$$") {
      open = i; close = part; braces = 0;
    } else if (part.slice(1, 6) === "begin") {
      open = i; close = "\\end" + part.slice(6); braces = 0;
    }
  }
  if (open >= 0 && pending >= 0) stash(open, pending);
  return { text: untilde(parts.join("")), math };
}

function putMath(html, math) {
  return html.replace(/@@(\d+)@@/g, (_, n) => math[Number(n)]);
}

// JupyterLab's MathJax 3 settings for the TeX input (its mathjax-extension).
const MATHJAX_CONFIG = {
  tex: {
    inlineMath: [["$", "$"], ["\\(", "\\)"]],
    displayMath: [["$$", "$$"], ["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
};

module.exports = { takeMath, putMath, MATHJAX_CONFIG };
