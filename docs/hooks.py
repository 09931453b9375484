"""MkDocs hooks.

* The proof notes are written as plain text with TeX formulas, where ``Q[r][0]`` or
  ``f^[K+1](tube)`` are not links: on the proof-note pages, escape ``][`` and ``](``
  outside code and TeX so that Markdown (and mkdocs-autorefs) leave them as text.
* MathJax is copied into the built site (offline rendering).
* API pages: Sphinx roles written as code, private base classes hidden."""

import re
from pathlib import Path

#: code spans and TeX (``$…$``, ``$$…$$``), where ``][`` and ``](`` are left alone
_CODE = re.compile(r"(`+)(?:.|\n)*?\1|\$\$(?:.|\n)*?\$\$|\$[^$\n]+\$")


def _escape(text: str) -> str:
    out, last = [], 0
    for m in _CODE.finditer(text):
        out.append(text[last:m.start()].replace("][", "]\\[").replace("](", "]\\("))
        out.append(m.group(0))
        last = m.end()
    out.append(text[last:].replace("][", "]\\[").replace("](", "]\\("))
    return "".join(out)


_SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.startswith("proofs/"):
        return markdown
    # Include the note here (not by pymdownx.snippets, which runs after this hook).
    root = Path(config["config_file_path"]).parent
    markdown = _SNIPPET.sub(lambda m: (root / m.group(1)).read_text(encoding="utf-8"),
                            markdown)
    lines, fenced, display = [], False, False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if line.strip() == "$$":  # a display formula's fence: TeX inside, untouched
            display = not display
        if fenced or display or line.startswith("    "):
            lines.append(line)
        else:
            lines.append(_escape(line))
    return "\n".join(lines)


def on_post_build(config):
    """Copy MathJax (from the django-static-mathjax package, a docs dependency) into the
    built site: the formulas render offline, from the site's own files."""
    import shutil

    import mathjax

    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    dst = Path(config["site_dir"]) / "javascripts" / "mathjax" / "tex-svg.js"
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


#: a Sphinx role as mkdocstrings renders it, ":func:<code>x</code>" (the numpydoc
#: docstrings keep their roles for help() and IDEs; on the site they become code)
_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):"
                   r"<code>(~?)([^<]+)</code>")
#: a class's "Bases:" line naming only private classes (implementation detail)
_PRIVATE_BASES = re.compile(r'<p class="doc doc-class-bases">\s*Bases:(?:\s*<code>'
                            r'<span title="[^"]*">_\w+</span></code>,?)+\s*</p>')


def _role(m: re.Match) -> str:
    name = m.group(2).lstrip(".")
    return f"<code>{name.rsplit('.', 1)[-1] if m.group(1) else name}</code>"


def on_page_content(html, page, config, files):
    """API pages: Sphinx roles written as code."""
    if not page.file.src_uri.startswith("reference/"):
        return html
    return _ROLE.sub(_role, html)


def on_post_page(output, page, config):
    """API pages: private base classes not shown (after mkdocs-autorefs made the
    cross-references, which it does once the page is rendered)."""
    if not page.file.src_uri.startswith("reference/"):
        return output
    return _PRIVATE_BASES.sub("", output)
