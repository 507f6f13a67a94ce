"""Hypothesis profiles: the full `ci` run and a small `dev` run for the edit-test loop.

- `ci`: every property runs the example count its own test asks for (`examples(10_000)` runs 10,000), and
  properties that ask for none run Hypothesis's default. CI sets `CI=true`, which selects it.
- `dev`: at most `DEV_EXAMPLES` examples per property. Selected by default on a developer's machine and by
  `scripts/test.sh --fast`.
`HYPOTHESIS_PROFILE=ci|dev` overrides the choice. Only the number of examples differs between the profiles;
what each property asserts does not, so the dev profile is a smaller sample of the same check.
"""

from __future__ import annotations

import os

from hypothesis import settings

DEV_EXAMPLES = 50
PROFILES = ("ci", "dev")


def active_profile() -> str:
    """The profile this run uses: HYPOTHESIS_PROFILE, else `ci` under CI, else `dev`."""
    chosen = os.environ.get("HYPOTHESIS_PROFILE", "").strip()
    if chosen:
        if chosen not in PROFILES:
            raise ValueError(f"HYPOTHESIS_PROFILE={chosen!r} is not one of {', '.join(PROFILES)}")
        return chosen
    return "ci" if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes") else "dev"


PROFILE = active_profile()


def examples(full: int) -> int:
    """A property's example count in this run: `full` under `ci`, at most DEV_EXAMPLES under `dev`."""
    return full if PROFILE == "ci" else min(full, DEV_EXAMPLES)


def load() -> None:
    """Register both profiles and load the active one (called once, from tests/conftest.py)."""
    settings.register_profile("ci", settings())
    settings.register_profile("dev", max_examples=DEV_EXAMPLES)
    settings.load_profile(PROFILE)
