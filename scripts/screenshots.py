"""Screenshots of citelint's review surface in a real browser (headless Chromium).

For each bundled example (examples/expertqa, examples/expertqa-faults,
examples/model-output) this runs the CLI as a user would and photographs
what a person reads:

- the step summary (``citelint check --summary-file``, with the GitHub
  variables of a pull request set so locations are links), turned from
  Markdown into HTML by cmark-gfm, GitHub's own parser, and styled roughly as
  GitHub shows a step summary; at a desktop and a narrow width, so text that
  runs off-screen shows;
- ``citelint render`` of each of its reports (HTML as written, nothing added).

Usage::

    python scripts/screenshots.py OUTDIR [--chromium PATH] [--width 1280] [--height 2400]

Needs Chromium (Debian: ``apt-get install chromium``). Writes ``OUTDIR/*.png``
and the HTML pages they were taken from beside them. Exit 0 when every
picture was taken, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ("expertqa", "expertqa-faults", "model-output")

#: Roughly GitHub's rendering of Markdown (github-markdown-css): the parts a
#: step summary uses. Long words wrap (``word-wrap: break-word``), tables are
#: blocks as wide as their content that scroll, as on GitHub.
GITHUB_CSS = """
body{margin:0;background:#f6f8fa;font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,
sans-serif;color:#1f2328}
.box{max-width:1012px;margin:24px auto;background:#fff;border:1px solid #d1d9e0;border-radius:6px;padding:16px 32px}
.markdown-body{word-wrap:break-word}
.markdown-body h2{font-size:1.5em;border-bottom:1px solid #d1d9e0b3;padding-bottom:.3em;margin:24px 0 16px}
.markdown-body h3{font-size:1.25em;margin:24px 0 16px}.markdown-body h4{font-size:1em;margin:24px 0 16px}
.markdown-body code{padding:.2em .4em;font-size:85%;background:#818b981f;border-radius:6px;white-space:break-spaces;
font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.markdown-body table{display:block;width:max-content;max-width:100%;overflow:auto;border-collapse:collapse}
.markdown-body td,.markdown-body th{border:1px solid #d1d9e0;padding:6px 13px}
.markdown-body blockquote{margin:0 0 16px;padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}
.markdown-body a{color:#0969da;text-decoration:none}
.markdown-body ul{padding-left:2em}.markdown-body li+li{margin-top:.25em}
.markdown-body details summary{cursor:pointer;font-weight:600}
"""


def run_cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m citelint ARGS`` in ``cwd``, as a user would."""
    return subprocess.run([sys.executable, "-m", "citelint", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, encoding="utf-8", check=False)


def summary_page(markdown: str, title: str) -> str:
    """The step summary as GitHub would show it: Markdown to HTML by cmark-gfm."""
    import html

    import cmarkgfm
    from cmarkgfm.cmark import Options

    # GitHub keeps <details>, <summary> and <b> after its sanitizer; so does
    # this page (the summary holds no other raw HTML: everything else is escaped).
    body = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{GITHUB_CSS}</style></head><body><div class=\"box markdown-body\">{body}</div></body></html>")


def shoot(chromium: str, page: Path, png: Path, width: int, height: int, expand: bool = False) -> bool:
    """Screenshot ``page`` into ``png`` at ``width`` x ``height`` CSS pixels.

    ``expand`` opens every ``<details>`` first (a copy of the page with
    ``open`` set), so the collapsed list is photographed too.
    """
    if expand:
        text = page.read_text(encoding="utf-8").replace("<details>", "<details open>")
        page = page.with_name(page.stem + "-open.html")
        page.write_text(text, encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               f"--user-data-dir={profile}", f"--screenshot={png}", f"--window-size={width},{height}",
                               page.as_uri()], capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0 or not png.exists():
        print(f"screenshot of {page} failed: {done.stderr.strip()[-500:]}", file=sys.stderr)
        return False
    print(f"wrote {png}")
    return True


def main(argv: list[str] | None = None) -> int:
    """Take every screenshot into the folder named on the command line; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path, help="folder for the screenshots (created if missing)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "",
                        help="Chromium executable (default: chromium on PATH)")
    parser.add_argument("--width", type=int, default=1280, help="window width in CSS pixels (default 1280)")
    parser.add_argument("--height", type=int, default=2400, help="window height in CSS pixels (default 2400)")
    args = parser.parse_args(argv)
    if not args.chromium:
        print("no chromium found: install it (Debian: apt-get install chromium) or pass --chromium", file=sys.stderr)
        return 1
    out = args.outdir.resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GITHUB_SERVER_URL="https://github.com", GITHUB_REPOSITORY="citelint/citelint",
               GITHUB_SHA="0123456789abcdef0123456789abcdef01234567", PYTHONPATH=str(ROOT))
    env.pop("GITHUB_ACTIONS", None)
    ok = True
    for example in EXAMPLES:
        folder = ROOT / "examples" / example
        summary = out / f"{example}-summary.md"
        summary.unlink(missing_ok=True)
        checked = run_cli(["check", "--summary-file", str(summary)], folder, env)
        print(f"{example}: citelint check exited {checked.returncode}")
        page = out / f"{example}-summary.html"
        page.write_text(summary_page(summary.read_text(encoding="utf-8"), f"{example} step summary"),
                        encoding="utf-8")
        ok &= shoot(args.chromium, page, out / f"{example}-summary.png", args.width, args.height)
        ok &= shoot(args.chromium, page, out / f"{example}-summary-open-narrow.png", 480, args.height, expand=True)
        for report in sorted((folder / "reports").iterdir()):
            html_out = out / f"{example}-{report.stem}.html"
            rendered = run_cli(["render", str(report.relative_to(folder)), "-o", str(html_out)], folder, env)
            if rendered.returncode != 0:
                print(f"render {report} exited {rendered.returncode}: {rendered.stderr.strip()}", file=sys.stderr)
                ok = False
                continue
            ok &= shoot(args.chromium, html_out, out / f"{example}-{report.stem}.png", args.width, args.height)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
