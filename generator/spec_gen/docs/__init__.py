"""The reference docs as data: one model, rendered twice (Markdown pages and one HTML page).

`build_site(api, settings)` turns the IR into pages of blocks (paragraphs, tables, code,
headings). Every sentence, table and example is made here once; the Markdown and HTML
templates only lay the same blocks out, so the two outputs cannot drift apart.
"""

from .model import DocsSettings, Site
from .site import build_site

__all__ = ["DocsSettings", "Site", "build_site"]
