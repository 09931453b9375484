// MathJax 3 for pymdownx.arithmatex (generic mode: \( \) inline, \[ \] display). The
// script itself (javascripts/mathjax/tex-svg.js) is copied into the site at build time by
// docs/hooks.py from the django-static-mathjax package: nothing is fetched by the reader.
window.MathJax = {
  tex: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]],
        processEscapes: true, processEnvironments: true},
  options: {ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex"},
  svg: {fontCache: "global"}
};
// Material's instant navigation swaps pages without a reload: typeset each new page.
if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    if (window.MathJax && MathJax.typesetPromise) {
      MathJax.startup.output.clearCache(); MathJax.typesetClear(); MathJax.texReset();
      MathJax.typesetPromise();
    }
  });
}
