// Typesets the math pymdownx.arithmatex (generic mode) marks: \(...\) in a span, \[...\] in a
// div. The options are the tests' own (tests/render/render.js), so the site draws what they check.
(function () {
  "use strict";
  function typeset(root) {
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      var tex = el.textContent.trim();
      var display = el.tagName === "DIV";
      tex = tex.slice(2, -2);  // the \( \) or \[ \] arithmatex wrote
      katex.render(tex, el, {
        displayMode: display, throwOnError: false, strict: "error", output: "htmlAndMathml"
      });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function () { typeset(document.body); });
  } else {
    typeset(document.body);
  }
})();
