"""The harness's failure report (tests/harness/failure_logs.py): what a failed test's processes logged."""

from __future__ import annotations

from pathlib import Path

from tests.harness import failure_logs


def test_a_log_is_summarised_by_its_warnings_then_its_last_lines(tmp_path: Path) -> None:
    lines = ["[t] INFO start", "[t] WARNING lease lapsed", "[t] ERROR task failed"]
    lines += [f"[t] INFO step {n}" for n in range(100)]
    (tmp_path / "w0.log").write_text("\n".join(lines) + "\n")
    text = failure_logs.summary(tmp_path / "w0.log")
    assert text.splitlines()[:4] == ["w0.log: 103 lines", "-- newest warnings and errors before the end:",
                                     "[t] WARNING lease lapsed", "[t] ERROR task failed"]
    assert text.splitlines()[-1] == "[t] INFO step 99" and "[t] INFO step 74" not in text
    assert "[t] INFO start" not in text


def test_every_log_under_the_directory_is_reported_within_the_budget(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "mm.log").write_text("[t] INFO mirror\n")
    (tmp_path / "w1.log").write_text("".join(f"[t] INFO {'x' * 300} {n}\n" for n in range(2000)))
    (tmp_path / "notes.txt").write_text("not a log\n")
    text = failure_logs.report(tmp_path)
    assert "mm.log: 1 lines" in text and "w1.log: 2000 lines" in text and "not a log" not in text
    assert len(text) <= 12_000 + 40
