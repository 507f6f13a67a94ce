"""The docs site's reference, generated from the code at build time (docs/hooks.py adds the pages).

`config_keys` renders every ConfigDef key (worker, connectors, MirrorMaker, transforms, converters),
`rest_api` the REST API's paths from the app's OpenAPI document, `cli_help` the commands' `--help`, `audit`
the configuration audit (each key honoured, refused, pending or a gap, and the tests that show it).
"""

from __future__ import annotations

from replikafka.reference.audit import audit_page
from replikafka.reference.cli_help import cli_page
from replikafka.reference.config_keys import config_page, config_sections
from replikafka.reference.rest_api import rest_page

#: Generated pages: docs-relative path -> a function returning the page's Markdown.
PAGES = {
    "reference/configuration.md": config_page,
    "reference/rest-api.md": rest_page,
    "reference/commands.md": cli_page,
    "internals/config-audit.md": audit_page,
}

__all__ = ["PAGES", "audit_page", "cli_page", "config_page", "config_sections", "rest_page"]
