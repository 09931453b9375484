"""The docs site as a reader's browser shows it (not part of the test suite or CI).

    python benchmarks/browser_check.py [--out /tmp/browser-check]

Builds the site (``mkdocs build --strict``), serves it on 127.0.0.1, opens the index, a
tutorial, every proof note, an API page and the benchmarks page in headless Chromium
(Debian's ``chromium`` package), lets MathJax typeset, and asserts on the DOM:

* every formula rendered: each ``arithmatex`` span holds a MathJax container, and no
  container holds a TeX error (``merror``);
* no Sphinx role shown as text (``:func:``, ``:class:``, …);
* no broken image (every ``<img>`` source answers 200).

It prints one row per page (formulas rendered, unrendered, TeX errors, raw roles, broken
images) and saves a screenshot of each page in ``--out``. Exit 1 if any count that must be
0 is not. The site is built and served from a temporary directory; nothing is fetched
from outside 127.0.0.1.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["", "tutorials/verify/", "proofs/tail/", "proofs/checker/", "proofs/integrator/",
         "proofs/hypotheses/", "proofs/audits/", "proofs/practice/", "reference/api/",
         "benchmarks/"]
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj):")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("browser_check: no Chromium (Debian: apt-get install chromium)")


def _browser(*args: str) -> str:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--virtual-time-budget=30000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300).stdout


def visible_text(dom: str) -> str:
    dom = re.sub(r"<(script|style|svg|mjx-container)\b.*?</\1>", " ", dom, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


def audit(dom: str, base: str) -> dict[str, int]:
    spans = re.findall(r'<span class="arithmatex">(.*?)</span>', dom, flags=re.S)
    blocks = re.findall(r'<div class="arithmatex">(.*?)</div>', dom, flags=re.S)
    items = spans + blocks
    rendered = sum("<mjx-container" in s for s in items)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)  # MathJax's own CSS
    errors = len(re.findall(r'data-mml-node="merror"|<mjx-merror', body))
    roles = len(ROLE.findall(visible_text(dom)))
    broken = 0
    for src in re.findall(r'<img[^>]+src="([^"]+)"', dom):
        url = urllib.request.urljoin(base, html.unescape(src))
        if not url.startswith("http://127.0.0.1"):
            broken += 1  # the site must not load images from elsewhere
            continue
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                broken += r.status != 200
        except OSError:
            broken += 1
    return {"formulas": len(items), "rendered": rendered, "unrendered": len(items) - rendered,
            "tex_errors": errors, "raw_roles": roles, "broken_images": broken}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/browser-check", help="screenshots go here")
    ap.add_argument("--errors", action="store_true", help="print each TeX error")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix="certified-site-"))
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                    "--site-dir", str(site)], cwd=ROOT, check=True)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None  # type: ignore
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    bad = 0
    print("| page | formulas | rendered | unrendered | TeX errors | raw roles | broken images |")
    print("|---|---|---|---|---|---|---|")
    try:
        for page in PAGES:
            url = base + page
            dom = _browser("--dump-dom", url)
            row = audit(dom, url)
            if args.errors:  # the TeX of each formula MathJax could not typeset
                body = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)
                for m in re.finditer(r'data-mml-node="merror"[^>]*>.*?<title>(.*?)</title>|'
                                     r'data-mjx-error="([^"]*)"', body, flags=re.S):
                    print(f"  {page}: {html.unescape(m.group(1) or m.group(2))}")
            name = page.strip("/").replace("/", "_") or "index"
            _browser(f"--screenshot={out / (name + '.png')}", "--window-size=1280,1600", url)
            bad += row["unrendered"] + row["tex_errors"] + row["raw_roles"] + \
                row["broken_images"] + (len(dom) < 1000)
            print(f"| {page or 'index'} | {row['formulas']} | {row['rendered']} | "
                  f"{row['unrendered']} | {row['tex_errors']} | {row['raw_roles']} | "
                  f"{row['broken_images']} |")
    finally:
        server.shutdown()
        shutil.rmtree(site, ignore_errors=True)
    print(f"screenshots: {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
