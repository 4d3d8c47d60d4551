"""SeleniumScrapingTool in Debian's real headless Chromium against a local page drawn by JavaScript."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.toolkit import SeleniumScrapingTool
from crewgraph.toolkit.selenium_tool import _find_chromium

BROWSER, DRIVER = _find_chromium()
pytestmark = pytest.mark.skipif(BROWSER is None or DRIVER is None, reason="no chromium + chromedriver on this machine")
pytest.importorskip("selenium", reason="selenium (the selenium extra) is not installed")

PAGE = """<html><body><h1>Static</h1><ul id="list"></ul>
<script>
setTimeout(function () {
  for (const name of ["alpha", "beta"]) {
    const li = document.createElement("li"); li.className = "item"; li.textContent = name;
    document.getElementById("list").appendChild(li);
  }
  const c = document.createElement("p"); c.id = "cookie"; c.textContent = document.cookie || "no cookie";
  document.body.appendChild(c);
}, 150);
</script></body></html>"""


@pytest.fixture(scope="module")
def site() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"GET /": PAGE, "GET /page": PAGE}) as service:
        yield service


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    browser = SeleniumScrapingTool()._start()  # one browser for the tests that pass driver=...
    try:
        yield browser
    finally:
        browser.quit()


def test_starts_its_own_browser_and_reads_elements_drawn_by_javascript(site: FakeHTTPService) -> None:
    tool = SeleniumScrapingTool(cookie={"name": "session", "value": "abc"}, wait_time=5)
    assert tool.run(website_url=site.url + "/page", css_element="li.item") == "alpha\nbeta"


def test_cookie_html_and_fixed_arguments(site: FakeHTTPService, driver: object) -> None:
    html = SeleniumScrapingTool(website_url=site.url + "/page", css_element="#cookie", return_html=True,
                                cookie={"name": "session", "value": "abc"}, driver=driver).run()
    assert html == '<p id="cookie">session=abc</p>'
    assert "website_url" not in SeleniumScrapingTool(website_url=site.url).to_spec().parameters.get("properties", {})


def test_nothing_matching_and_bad_urls(site: FakeHTTPService, driver: object) -> None:
    tool = SeleniumScrapingTool(wait_time=0, driver=driver)
    assert tool.run(website_url=site.url + "/page", css_element=".missing") == ""
    assert "Static" in tool.run(website_url=site.url + "/page", css_element="")
    with pytest.raises(ValueError, match="website_url"):
        SeleniumScrapingTool().run(website_url="file:///etc/passwd", css_element="p")
