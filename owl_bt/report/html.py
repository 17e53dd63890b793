"""The report's HTML rendering: Python-Markdown with tables and fenced code, in a plain page."""

from __future__ import annotations

import html

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45}
pre{background:#f5f5f5;padding:.6em;overflow-x:auto}code{font-size:.92em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
img{max-width:100%}"""


def markdown_to_html(md: str, title: str) -> str:
    """A complete HTML page for Markdown text (the report's own Markdown)."""
    try:
        import markdown

        body = markdown.markdown(md, extensions=["tables", "fenced_code"], output_format="html")
    except ImportError:  # still readable without Python-Markdown
        body = f"<pre>{html.escape(md)}</pre>"
    return (f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")
