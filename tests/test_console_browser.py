"""The operator console (GET /ui) in headless Chromium, against a worker replicating A->B for real.

The page lists the connectors and tasks with their states, worker ids and failure traces, its lag and
throughput charts gain points as the worker samples its metrics, and its buttons act through the REST
API: pause shows in `GET /connectors/{name}/status`; with basic auth on, an action sent without
credentials is refused (401) and changes nothing.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from tests.harness.brokers import Broker
from tests.harness.connectors import sequence_connector, status
from tests.harness.kafka_io import create_topic, keep_producing
from tests.harness.mirror import mirror_source
from tests.harness.workers import WorkerProcess, wait_for

AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
CREDENTIALS = ("ops", "s3cret")


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    yield driver
    driver.quit()


def send_credentials(driver: webdriver.Chrome, credentials: tuple[str, str] | None) -> None:
    """Every request the browser makes from now on carries these credentials (None: none)."""
    headers = {}
    if credentials is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(credentials).encode()).decode()
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": headers})


def points(driver: webdriver.Chrome, kind: str) -> int:
    """How many samples the chart of `kind` shows now (the page redraws it from /ui/state)."""
    value = driver.execute_script(
        f"const c = document.querySelector('svg.chart[data-kind=\"{kind}\"]'); return c && c.dataset.points;")
    return int(value or 0)


def page_text(driver: webdriver.Chrome) -> str:
    return str(driver.execute_script("return document.body.innerText;"))


def click(driver: webdriver.Chrome, element_id: str) -> None:
    """Click a button the page may be redrawing (the poll swaps the table's HTML every few seconds)."""
    def clicked() -> bool:
        try:
            driver.find_element(By.ID, element_id).click()
            return True
        except StaleElementReferenceException:
            return False
    wait_for(clicked, 10, f"a click on #{element_id}")


def message_after(driver: webdriver.Chrome, element_id: str) -> str:
    """Click the action button `element_id` and return what the page says the REST API answered."""
    driver.execute_script("document.getElementById('message').textContent = '';")
    click(driver, element_id)

    def answered() -> str:
        text = driver.find_element(By.ID, "message").text
        return text if text and not text.endswith(": sent") else ""
    try:
        return wait_for(answered, 15, f"the REST API's answer to #{element_id}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the page says {driver.find_element(By.ID, 'message').text!r}") from None


def state_of(worker: WorkerProcess, name: str) -> Callable[[], str]:
    return lambda: str(status(worker, name).get("connector", {}).get("state", ""))


def start_replication(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str,
                      extra: dict[str, str], client: dict[str, Any]) -> tuple[WorkerProcess, threading.Event]:
    """A worker on B running MirrorSource A->B over a topic that keeps receiving records, and a
    sequence connector whose task fails at its 5th record."""
    topic = f"ui{unique}"
    create_topic(broker.bootstrap, topic, 2)
    stop = threading.Event()
    keep_producing(broker.bootstrap, topic, 0, 1_000_000, 2, stop, burst=50)
    cluster = cluster_factory(on=broker_b, extra={"console.sample.interval.ms": "500", **extra})
    cluster.client = client
    (worker,) = cluster.start(1)
    mirror = {"name": "mm", "config": mirror_source(broker, broker_b, {"topics": topic, "tasks.max": "1"})}
    assert worker.request("POST", "/connectors", mirror).status_code == 201
    failing = sequence_connector("fails", f"{topic}-seq", 1, 1000, 50)
    failing["config"]["fail.at"] = "5"
    assert worker.request("POST", "/connectors", failing).status_code == 201
    return worker, stop


def check_console(driver: webdriver.Chrome, worker: WorkerProcess, tmp_path: Path) -> None:
    """What both tests see: connectors, tasks, a failed task's trace, charts that grow, pause."""
    driver.get(worker.url + "/ui")
    rows = 'return [...document.querySelectorAll("tr.connector, tr.task")].map(r => r.innerText).join("\\n");'
    wait_for(lambda: all(s in driver.execute_script(rows) for s in ("mm", "fails", "task 0", "RUNNING")), 45,
             "the connectors and their tasks listed")
    wait_for(lambda: "configured to fail at 5" in page_text(driver), 30, "the failed task's trace")
    assert "FAILED" in page_text(driver) and worker.worker_id in page_text(driver)
    wait_for(lambda: points(driver, "lag_records") >= 3 and points(driver, "throughput") >= 3, 30, "chart points")
    seen = {kind: points(driver, kind) for kind in ("lag_records", "throughput")}
    wait_for(lambda: all(points(driver, kind) > n for kind, n in seen.items()), 15, "charts that grow")
    assert driver.find_elements(By.CSS_SELECTOR, "svg.chart[data-kind=throughput] polyline")
    assert "A.ui" in driver.find_element(By.ID, "partitions").text, "the remote topic's partitions"
    flow = driver.find_element(By.CSS_SELECTOR, "tr.flow[data-flow='A-B']").text
    assert "A \u2192 B" in flow and "mm RUNNING" in flow, flow

    assert "HTTP 202" in message_after(driver, "pause-mm")
    wait_for(lambda: state_of(worker, "mm")() == "PAUSED", 15, "mm paused (REST status)")
    assert "HTTP 20" in message_after(driver, "restart-fails")
    wait_for(lambda: all(t["state"] == "RUNNING" for t in status(worker, "fails").get("tasks", [{}])), 20,
             "the failed task restarted")
    driver.save_screenshot(str(tmp_path / "console.png"))
    assert (tmp_path / "console.png").stat().st_size > 0


def test_console_lists_charts_and_acts(browser: webdriver.Chrome, cluster_factory: Any, broker: Broker,
                                       broker_b: Broker, unique: str, tmp_path: Path) -> None:
    worker, stop = start_replication(cluster_factory, broker, broker_b, unique, {}, {})
    try:
        send_credentials(browser, None)
        check_console(browser, worker, tmp_path)
    finally:
        stop.set()


def test_console_with_basic_auth(browser: webdriver.Chrome, cluster_factory: Any, broker: Broker,
                                 broker_b: Broker, unique: str, tmp_path: Path) -> None:
    creds = tmp_path / "credentials.properties"
    creds.write_text(f"{CREDENTIALS[0]}: {CREDENTIALS[1]},admin\n")
    extra = {"rest.extension.classes": AUTH, "rest.basic.auth.credentials.file": str(creds)}
    worker, stop = start_replication(cluster_factory, broker, broker_b, unique, extra, {"auth": CREDENTIALS})
    try:
        assert httpx.get(worker.url + "/ui").status_code == 401, "the console itself needs credentials"
        assert httpx.put(worker.url + "/connectors/mm/pause").status_code == 401
        scripted = httpx.put(worker.url + "/connectors/mm/pause", headers={"X-Requested-With": "XMLHttpRequest"})
        assert scripted.status_code == 401 and "www-authenticate" not in scripted.headers, "no login dialog"
        send_credentials(browser, CREDENTIALS)
        browser.get(worker.url + "/ui")
        wait_for(lambda: browser.find_elements(By.ID, "pause-mm"), 45, "the pause button")
        send_credentials(browser, None)
        assert "HTTP 401 (refused)" in message_after(browser, "pause-mm")
        assert wait_for(state_of(worker, "mm"), 10, "a state") == "RUNNING", "a refused pause changed nothing"
        send_credentials(browser, CREDENTIALS)
        check_console(browser, worker, tmp_path)
    finally:
        stop.set()
