"""mkdocs hook: adds the reference pages generated from the code (replikafka/reference) to the site.

Nothing generated is checked in: every build renders the ConfigDefs, the REST API's OpenAPI document and the
commands' help anew.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

from replikafka.reference import PAGES


def on_files(files: Files, config: Any) -> Files:
    """Add each generated reference page to the site's files (before the nav is built)."""
    for src_uri, render in PAGES.items():
        files.append(File.generated(config, src_uri, content=render()))
    return files
