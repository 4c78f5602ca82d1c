// Parses math with KaTeX the strict way: reads a JSON list of {"tex": ..., "display": bool} on
// standard input and prints a JSON list with one entry per item: null if it parsed, else the error.
"use strict";
const katex = require("katex");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const results = JSON.parse(input).map((item) => {
    try {
      katex.renderToString(item.tex, {
        throwOnError: true, strict: "error", displayMode: item.display,
      });
      return null;
    } catch (err) {
      return String(err.message);
    }
  });
  process.stdout.write(JSON.stringify(results) + "\n");
});
