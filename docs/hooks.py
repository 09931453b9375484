"""MkDocs hook: the proof notes are written as plain mathematics, where ``Q[r][0]`` or
``f^[K+1](tube)`` are not links. On the proof-note pages, escape ``][`` and ``](`` outside
code so that Markdown (and mkdocs-autorefs) leave them as text."""

import re
from pathlib import Path

_CODE = re.compile(r"(`+)(?:.|\n)*?\1")


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
    lines, fenced = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.startswith("    "):
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
