from __future__ import annotations

import json
import logging
import threading

from pyconnect.logging_context import TEXT_FORMAT, ContextFilter, JsonFormatter, set_context


def _emit(fmt: logging.Formatter) -> list[str]:
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Collect()
    handler.addFilter(ContextFilter())
    handler.setFormatter(fmt)
    logger = logging.getLogger("ctx-test")
    logger.addHandler(handler)
    logger.propagate = False

    def task() -> None:
        set_context("orders-mirror", 3)
        logger.warning("copied %d records", 5)

    t = threading.Thread(target=task)
    t.start()
    t.join()
    logger.warning("from the worker thread")
    logger.removeHandler(handler)
    return lines


def test_text_lines_carry_the_task_context_only_in_its_thread() -> None:
    task_line, worker_line = _emit(logging.Formatter(TEXT_FORMAT))
    assert "WARNING [orders-mirror|task-3] copied 5 records (ctx-test)" in task_line
    assert "[orders-mirror" not in worker_line


def test_json_lines() -> None:
    task_line, _ = _emit(JsonFormatter())
    entry = json.loads(task_line)
    assert entry["context"] == "[orders-mirror|task-3]" and entry["message"] == "copied 5 records"
    assert entry["level"] == "WARNING" and entry["time"].endswith("Z")
