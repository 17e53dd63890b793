"""The report's HTML rendering: Python-Markdown with tables and fenced code, in a plain page.

The report quotes text nobody vetted — the person's instruction, a model's answer, failure reasons
that repeat words of either — so the page shows it as text: raw HTML in the Markdown is not passed
through (it is escaped), and the HTML is then cleaned by nh3 (the Ammonia sanitizer: no scripts,
event attributes or `javascript:` links survive).
"""

from __future__ import annotations

import html

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45}
pre{background:#f5f5f5;padding:.6em;overflow-x:auto}code{font-size:.92em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
img{max-width:100%}"""


def _no_raw_html():
    """A Python-Markdown extension that treats raw HTML (blocks and inline tags) as text."""
    from markdown.extensions import Extension

    class NoRawHtml(Extension):
        def extendMarkdown(self, md) -> None:  # noqa: N802 (Python-Markdown's name)
            md.preprocessors.deregister("html_block")
            md.inlinePatterns.deregister("html")

    return NoRawHtml()


def markdown_to_html(md: str, title: str) -> str:
    """A complete HTML page for Markdown text (the report's own Markdown); `title` is plain text."""
    try:
        import markdown
        import nh3

        body = markdown.markdown(
            md, extensions=["tables", "fenced_code", _no_raw_html()], output_format="html"
        )
        allowed = {tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()}
        allowed.setdefault("code", set()).add("class")  # fenced code keeps its language-… class
        body = nh3.clean(body, attributes=allowed)
    except ImportError:  # still readable (and safe) without Python-Markdown or nh3
        body = f"<pre>{html.escape(md)}</pre>"
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
