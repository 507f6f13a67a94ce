"""A third-party plugin distribution installed into a site directory of its own: `acme-smt` 2.3.1,
providing the transform `acme_smt.Prefix` through the `pyconnect.transforms` entry-point group. Workers
get the directory on their PYTHONPATH (Cluster.python_path), so importlib.metadata finds the
distribution as it finds one pip installed."""

from __future__ import annotations

from pathlib import Path

DIST, VERSION, CLASS = "acme-smt", "2.3.1", "acme_smt.Prefix"

_MODULE = '''
from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.transforms.spi import Transformation


class Prefix(Transformation):
    """Prefixes every record value with `prefix`."""

    CONFIG = ConfigDef([ConfigKey("prefix", ConfigType.STRING, "acme-", Importance.HIGH, "Text put before the value.")])

    def config_def(self):
        return self.CONFIG

    def configure(self, config):
        self.prefix = self.CONFIG.parse(config)["prefix"]

    def apply(self, record):
        value = record.value
        if isinstance(value, bytes):
            value = self.prefix.encode() + value
        elif value is not None:
            value = self.prefix + str(value)
        return record.new_record(value=value)
'''


def install(site: Path) -> Path:
    """Write the package and its dist-info under `site`; the directory to put on the path."""
    (site / "acme_smt").mkdir(parents=True, exist_ok=True)
    (site / "acme_smt" / "__init__.py").write_text(_MODULE)
    info = site / f"acme_smt-{VERSION}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {VERSION}\n")
    (info / "top_level.txt").write_text("acme_smt\n")
    (info / "entry_points.txt").write_text("[pyconnect.transforms]\nPrefix = acme_smt:Prefix\n")
    return site
