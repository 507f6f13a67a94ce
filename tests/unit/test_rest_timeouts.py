"""A request that times out answers Connect's 500 with a sentence, and logs one line, not a stack trace.

Follows Kafka's ConnectExceptionMapper (a ConnectRestException, such as HerderRequestHandler's "Request timed
out", is answered without an ERROR log; any other exception is logged with its trace and answered 500).
"""

from __future__ import annotations

import logging

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from rest import errors

READ_TIMEOUT = "could not read connect-offsets to its end within 30.0s"


def _app() -> FastAPI:
    app = FastAPI()
    errors.install(app)

    @app.get("/connectors/{name}/offsets")
    def offsets(name: str) -> None:
        raise TimeoutError(READ_TIMEOUT)

    @app.get("/bare")
    def bare() -> None:
        raise TimeoutError

    @app.get("/bug")
    def bug() -> None:
        raise RuntimeError("unexpected")
    return app


def test_a_timeout_is_a_500_with_its_reason_and_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    client = TestClient(_app(), raise_server_exceptions=False)
    with caplog.at_level(logging.DEBUG):
        answer = client.get("/connectors/mirror/offsets")
    assert answer.status_code == 500
    assert answer.json() == {"error_code": 500, "message": READ_TIMEOUT}
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        f"GET /connectors/mirror/offsets timed out: {READ_TIMEOUT}"]
    assert not any(r.exc_info for r in caplog.records), "a timeout is one line in the log, not a stack trace"
    assert client.get("/bare").json() == {"error_code": 500, "message": "Request timed out"}


def test_any_other_exception_is_still_a_500_with_its_message() -> None:
    answer = TestClient(_app(), raise_server_exceptions=False).get("/bug")
    assert answer.status_code == 500
    assert answer.json() == {"error_code": 500, "message": "unexpected"}
