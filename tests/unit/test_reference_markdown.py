"""The generated configuration reference shows names in angle brackets as written.

Markdown passes `<group.id>` through as an HTML tag, which a browser hides: the page read
`connect-membership..internal`. The check renders the page as the site does (Python-Markdown, tables) and reads
the text a browser shows.
"""

from __future__ import annotations

import html
import re

import markdown

from replikafka.reference.config_keys import config_page


def _visible_text(page: str) -> str:
    """The text a browser shows for the page: tags dropped, entities decoded."""
    rendered = markdown.markdown(page, extensions=["tables"])
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def test_placeholders_in_documentation_survive_rendering() -> None:
    text = _visible_text(config_page())
    assert "connect-membership.<group.id>.internal" in text
    assert "connect-membership..internal" not in text


def test_kafka_html_in_documentation_still_renders_as_code() -> None:
    rendered = markdown.markdown(config_page(), extensions=["tables"])
    assert "&lt;code&gt;" not in rendered
