"""The UI in a real headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by
Selenium pointed at ``/usr/bin/chromedriver``, so nothing is downloaded), against the real
uvicorn server on a free loopback port."""

from __future__ import annotations

import shutil
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _forkserver import run_python

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="no chromium + chromedriver on this machine (apt-get install chromium chromium-driver; "
    "scripts/setup.sh does it when run as root)",
)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the dev extra) is not installed")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the module (starting one costs ~1.5 s of CPU and seconds of
    wall time); ``browser`` gives each test a clean one."""
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(15)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The module's Chromium on a blank page, at its first window size, with no cookie left by
    an earlier test (cookies ignore ports; other site data is per origin, and each test's
    server has a port of its own)."""
    size = _first_size.setdefault("size", chromium.get_window_size())
    chromium.get("about:blank")
    try:
        yield chromium
    finally:
        chromium.get("about:blank")
        chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
        chromium.set_window_size(size["width"], size["height"])


_first_size: dict[str, dict[str, int]] = {}


def _png_is_not_blank(data: bytes) -> bool:
    """A real PNG whose pixels are not all one colour (decoded with zlib, no imaging library)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    pixels = zlib.decompress(idat)
    assert width > 100 and height > 100
    return len(set(pixels[: len(pixels)])) > 16


def test_run_page_draws_the_graph_and_the_node_panel(server: str, browser: Any, tmp_path: Path) -> None:
    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    started = httpx.post(f"{server}/kickoff", json={"target": "democrew", "inputs": {"topic": "cats"}}, timeout=10)
    assert started.status_code == 202, started.text
    run_id = started.json()["run_id"]
    deadline = time.monotonic() + 10
    while httpx.get(f"{server}/jobs/{started.json()['job_id']}", timeout=5).json()["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)

    wait = WebDriverWait(browser, 10)
    browser.get(f"{server}/")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-run="{run_id}"]')))
    browser.get(f"{server}/view/{run_id}")
    node = wait.until(ec.element_to_be_clickable(
        (By.CSS_SELECTOR, '#graph svg g.node[data-node="t1_research_topic.agent"]')))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#graph svg g.node")) >= 4
    node.click()
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#panel h3"), "t1_research_topic.agent"))
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#panel pre.section-prompt")))
    panel = browser.find_element(By.ID, "panel").text
    assert "research cats" in panel and "cats purr" in panel and "completed" in panel
    assert "selected" in (node.get_attribute("class") or "")
    assert "completed" in browser.find_element(By.ID, "run-status").text
    shot = tmp_path / "run-page.png"
    assert browser.save_screenshot(str(shot))
    assert _png_is_not_blank(shot.read_bytes())


def test_a_paused_review_is_answered_from_the_page(server: str, browser: Any) -> None:
    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    started = httpx.post(f"{server}/kickoff", json={"target": "reviewcrew"}, timeout=10).json()
    deadline = time.monotonic() + 10
    while started["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
        started = httpx.get(f"{server}/jobs/{started['job_id']}", timeout=5).json()
    assert started["status"] == "paused", started
    wait = WebDriverWait(browser, 10)
    browser.get(f"{server}/view/{started['run_id']}")
    wait.until(ec.text_to_be_present_in_element((By.ID, "question"), "A long draft about owls."))
    field = browser.find_element(By.ID, "answer")
    assert field.is_displayed() and not browser.find_element(By.ID, "resume").is_displayed()
    field.send_keys("make it shorter")
    browser.find_element(By.CSS_SELECTOR, "#answer-form button").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "question"), "Owls hunt at night."))
    browser.find_element(By.ID, "answer").clear()
    browser.find_element(By.CSS_SELECTOR, "#answer-form button").click()  # empty: accept the draft
    wait.until(ec.text_to_be_present_in_element((By.ID, "run-status"), "completed"))
    assert not browser.find_element(By.ID, "answer-form").is_displayed()


def test_the_graph_fits_beside_the_panel_and_zooms(server: str, browser: Any, tmp_path: Path) -> None:
    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    started = httpx.post(f"{server}/kickoff", json={"target": "democrew", "inputs": {"topic": "dogs"}}, timeout=10)
    assert started.status_code == 202, started.text
    run_id = started.json()["run_id"]
    deadline = time.monotonic() + 10
    while httpx.get(f"{server}/jobs/{started.json()['job_id']}", timeout=5).json()["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    browser.set_window_size(900, 800)  # narrow: the drawn graph is wider than the room it has
    wait = WebDriverWait(browser, 10)
    browser.get(f"{server}/view/{run_id}")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#graph svg g.node")))
    wait.until(ec.text_to_be_present_in_element((By.ID, "zoom-level"), "%"))

    def box(selector: str) -> dict[str, float]:
        return dict(browser.execute_script(
            "var r = document.querySelector(arguments[0]).getBoundingClientRect();"
            "return {left: r.left, right: r.right, width: r.width};", selector))

    graph, panel, svg = box("#graph"), box("#panel"), box("#graph svg")
    assert panel["left"] >= graph["right"] - 1 and panel["right"] <= 900  # the panel is beside it, on the page
    assert svg["width"] <= graph["width"]  # fitted: nothing hides under the panel
    fitted = svg["width"]
    browser.find_element(By.ID, "zoom-in").click()
    wait.until(lambda _: box("#graph svg")["width"] > fitted)
    assert "(fit)" not in browser.find_element(By.ID, "zoom-level").text
    browser.find_element(By.ID, "zoom-fit").click()
    wait.until(lambda _: abs(box("#graph svg")["width"] - fitted) < 2)
    shot = tmp_path / "fitted.png"
    assert browser.save_screenshot(str(shot))
    assert _png_is_not_blank(shot.read_bytes())


def test_a_page_on_another_origin_cannot_start_runs(server: str, browser: Any, project: Any) -> None:
    """A foreign page (another port is another origin) posts a form, a no-cors text fetch and
    empty no-cors fetches at /kickoff and at /resume of a failed run: all refused, no job starts."""
    import http.server
    import threading

    import httpx

    project.flag.touch()  # the second task fails: a run the page could resume
    failed = httpx.post(f"{server}/kickoff", json={"target": "democrew", "inputs": {"topic": "cats"}}, timeout=10)
    assert failed.status_code == 202, failed.text
    deadline = time.monotonic() + 15
    while httpx.get(f"{server}/jobs/job1", timeout=5).json()["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, "the failing run did not end in 15 s"
        time.sleep(0.05)
    project.flag.unlink()
    run_id = failed.json()["run_id"]
    page = f"""<!doctype html><html><body>
<form id="f" method="POST" action="{server}/kickoff" target="sink">
<input name="target" value="democrew"><input name="topic" value="evil"></form>
<iframe name="sink"></iframe>
<script>
fetch("{server}/kickoff", {{method: "POST", mode: "no-cors", body: "target=democrew",
  headers: {{"Content-Type": "text/plain"}}}}).catch(function () {{}});
fetch("{server}/kickoff", {{method: "POST", mode: "no-cors"}}).catch(function () {{}});
fetch("{server}/runs/{run_id}/resume", {{method: "POST", mode: "no-cors"}}).catch(function () {{}});
fetch("{server}/runs/{run_id}/resume", {{method: "POST", mode: "no-cors", body: "",
  headers: {{"Content-Type": "text/plain"}}}}).catch(function () {{}});
document.getElementById("f").submit();
setTimeout(function () {{ document.title = "sent"; }}, 800);
</script></body></html>""".encode()

    class Foreign(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    foreign = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Foreign)
    threading.Thread(target=foreign.serve_forever, daemon=True).start()
    try:
        before = len(httpx.get(f"{server}/runs", timeout=5).json()["runs"])
        browser.get(f"http://127.0.0.1:{foreign.server_address[1]}/")
        deadline = time.monotonic() + 10
        while browser.title != "sent":
            assert time.monotonic() < deadline, "the foreign page did not run its script"
            time.sleep(0.05)
        time.sleep(0.5)  # a started job would have a run id by now (202 waits for it)
        assert httpx.get(f"{server}/jobs/job2", timeout=5).status_code == 404  # job1: the failed run
        assert len(httpx.get(f"{server}/runs", timeout=5).json()["runs"]) == before
    finally:
        foreign.shutdown()
        foreign.server_close()


WIDE_CREW = '''
from crewgraph import Agent, Crew, Task
from crewgraph.errors import LLMError
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("lookup")
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def build():
    first = Agent(role="{topic} researcher", goal="learn", backstory="curious", tools=[lookup],
                  llm=FakeLLM([FakeToolCall("lookup", {"query": "item 0"}), "item 0 is fine"], model="fake"))
    checker = Agent(role="checker", goal="check", backstory="careful", llm=FakeLLM(default="fine", model="fake"))
    writer = Agent(role="writer", goal="report", backstory="terse", max_retry_limit=0,
                   llm=FakeLLM(default=LLMError("model down"), model="fake"))
    checks = [Task(name=f"check_{i}", description=f"check item {i} of {{topic}}", expected_output="ok",
                   agent=first if i == 0 else checker, async_execution=True) for i in range(200)]
    report = Task(name="report", description="report on {topic}", expected_output="a report", agent=writer,
                  context=checks)
    return Crew(name="widecrew", agents=[first, checker, writer], tasks=[*checks, report])
'''


def test_a_wide_failed_cli_run_is_readable_with_its_calls_and_red_failure(
        server: str, browser: Any, project: Any, tmp_path: Path) -> None:
    """200 parallel tasks and a failing report, run by ``crewgraph run`` in another process: the
    page draws them as one column at a readable zoom, the failed step red, and a step's prompt
    and tool call from the store."""
    import os
    import re

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    (project.root / "widecrew.py").write_text(WIDE_CREW, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                         os.environ.get("PYTHONPATH", "")])}
    done = run_python(["-m", "crewgraph.cli", "run", "widecrew:build", "--inputs", "topic=cats", "-q"],
                      cwd=project.root, env=env, timeout=120)
    assert done.returncode != 0 and "model down" in done.stdout + done.stderr, done.stdout + done.stderr
    found = re.search(r"run ([0-9a-f]{32})", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    run_id = found.group(1)

    wait = WebDriverWait(browser, 30)
    browser.get(f"{server}/view/{run_id}")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '#graph svg g.node[data-node="t201_report.agent"]')))
    wait.until(ec.text_to_be_present_in_element((By.ID, "zoom-level"), "%"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#graph svg g.node")) >= 201
    zoom = int(browser.find_element(By.ID, "zoom-level").text.split("%")[0])
    assert zoom >= 60, f"a 200-task graph fitted at {zoom}%: unreadable"
    sizes = dict(browser.execute_script(
        "var g = document.querySelector('#graph').getBoundingClientRect(),"
        " s = document.querySelector('#graph svg').getBoundingClientRect(),"
        " p = document.querySelector('#panel').getBoundingClientRect();"
        "return {graph: g.width, svg: s.width, svgh: s.height, panel: p.left, right: g.right};"))
    assert sizes["svg"] <= sizes["graph"] and sizes["panel"] >= sizes["right"] - 1
    assert sizes["svgh"] > 10 * sizes["svg"]  # one tall column, scrolled, not a 2% strip
    fill = browser.execute_script(
        "return document.querySelector('#graph g.node[data-node=\"t201_report.agent\"] polygon').getAttribute('fill');")
    assert fill.lower() == "#f4a3a3"  # the failed step is red

    browser.execute_script(
        "document.querySelector('#graph g.node[data-node=\"t201_report.agent\"]').scrollIntoView();")
    shot = tmp_path / "wide-failed.png"
    assert browser.save_screenshot(str(shot))
    assert _png_is_not_blank(shot.read_bytes())

    browser.execute_script(
        "document.querySelector('#graph g.node[data-node=\"t1_check_0.agent\"]')"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}));")
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#panel h3"), "t1_check_0.agent"))
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#panel pre.section-prompt")))
    panel = browser.find_element(By.ID, "panel").text
    assert "check item 0 of cats" in panel and "cats researcher" in panel and "item 0 is fine" in panel
    browser.execute_script(
        "document.querySelector('#graph g.node[data-node=\"t201_report.agent\"]')"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}));")
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#panel h3"), "t201_report.agent"))
    wait.until(ec.text_to_be_present_in_element((By.ID, "panel"), "model down"))
    panel = browser.find_element(By.ID, "panel").text
    assert "failed" in panel and "report on cats" in panel
