"""SeleniumScrapingTool: reads a page in a real headless Chromium, after its scripts have run.

For pages whose content is drawn by JavaScript, which a plain fetch
(``ScrapeWebsiteTool``) never sees. Each call starts a headless browser
(the system's ``chromium`` and ``chromedriver`` when they are on the PATH,
as Debian's ``chromium`` and ``chromium-driver`` packages install them;
else Selenium finds its own), loads the page, waits up to ``wait_time``
seconds for ``css_element`` to appear (or the page to finish loading),
returns the text (or outer HTML with ``return_html=True``) of every match,
one per line, and quits the browser. With ``cookie`` the cookie is set and
the page loaded again. A ``driver`` you pass is used and left open for you.
The ``selenium`` extra installs Selenium.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from crewgraph._internal.extras import import_extra
from crewgraph.toolkit._web import check_url
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SeleniumScrapingTool", "SeleniumScrapingToolSchema"]


class SeleniumScrapingToolSchema(BaseModel):
    """Input for SeleniumScrapingTool."""

    website_url: str = Field(
        ..., description="Mandatory website url to read the file. Must start with http:// or https://"
    )
    css_element: str = Field(..., description="Mandatory css reference for element to scrape from the website")

    @field_validator("website_url")
    @classmethod
    def _absolute_http(cls, value: str) -> str:
        if len(value) > 2048 or any(c.isspace() for c in value) or check_url(value) is not None:
            raise ValueError("website_url must be an absolute http:// or https:// URL without spaces (at most 2048 characters)")
        return value


def _find_chromium() -> tuple[str | None, str | None]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None
    )
    return browser, driver


class SeleniumScrapingTool(BaseTool):
    """Text (or HTML) of the elements a CSS selector picks, read in a headless browser."""

    name: str = "Read a website content"
    description: str = "A tool that can be used to read a website content."
    args_schema: type[BaseModel] = SeleniumScrapingToolSchema
    website_url: str | None = Field(default=None, description="Fixed URL (set at construction)")
    css_element: str | None = Field(default=None, description="Fixed CSS selector (set at construction)")
    cookie: dict[str, Any] | None = Field(default=None, description="A cookie ({'name', 'value'...}) set before reading")
    wait_time: int | None = Field(default=3, ge=0, description="Most seconds to wait for the elements to appear")
    return_html: bool | None = Field(default=False, description="Return outer HTML instead of text")
    driver: Any | None = Field(default=None, description="A Selenium WebDriver to use (left open)")
    options: Any | None = Field(default=None, description="Selenium ChromeOptions for the browser the tool starts")
    page_load_timeout: float = Field(default=30.0, gt=0, description="Seconds allowed for the page to load")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        fixed = {n for n in ("website_url", "css_element") if getattr(self, n) is not None}
        if fixed:
            self.args_schema = narrow_schema(self.args_schema, fixed, self.name)
        if self.website_url is not None:
            self.description = f"A tool that can be used to read {self.website_url}'s content."

    def config_problems(self) -> list[str]:
        import importlib.util

        if self.driver is None and importlib.util.find_spec("selenium") is None:
            return ["SeleniumScrapingTool needs the 'selenium' package: pip install 'crewgraph[selenium]'"]
        return []

    def _start(self) -> Any:
        webdriver = import_extra("selenium.webdriver", "selenium", "SeleniumScrapingTool")
        from selenium.webdriver.chrome.service import Service

        options = self.options or webdriver.ChromeOptions()
        browser, driver_path = _find_chromium()
        if self.options is None:
            if browser:
                options.binary_location = browser
            for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-extensions"):
                options.add_argument(flag)
        service = Service(executable_path=driver_path) if driver_path else Service()
        return webdriver.Chrome(service=service, options=options)

    def _run(self, website_url: str | None = None, css_element: str | None = None) -> str | ToolFailure:
        url = website_url or self.website_url
        if not url:
            return ToolFailure(message="No website_url given: say which page to read.", code="missing_url")
        bad = check_url(url)
        if bad is not None:
            return bad
        selector = css_element if css_element is not None else self.css_element
        own = self.driver is None
        try:
            driver: Any = self._start() if own else self.driver
        except ImportError:
            raise
        except Exception as exc:  # no browser, a driver that does not match it...
            return ToolFailure(
                message=f"SeleniumScrapingTool could not start a browser: {type(exc).__name__}: {exc} "
                "(install chromium and chromium-driver, or pass driver=...)",
                code="browser_unavailable",
            )
        try:
            return "\n".join(self._read(driver, url, selector))
        except Exception as exc:  # selenium raises WebDriverException subclasses for page problems
            return ToolFailure(message=f"Error scraping {url}: {type(exc).__name__}: {exc}".strip(), code="scrape_failed",
                               retryable=True)
        finally:
            if own:
                driver.quit()

    def _read(self, driver: Any, url: str, selector: str | None) -> list[str]:
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        driver.set_page_load_timeout(self.page_load_timeout)
        driver.get(url)
        if self.cookie:
            driver.add_cookie(self.cookie)
            driver.get(url)
        wait = WebDriverWait(driver, self.wait_time or 0, poll_frequency=0.1)
        blank = selector is None or not selector.strip()
        try:
            if blank:
                wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
            else:
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector))
        except TimeoutException:
            pass  # nothing matched in time: the (empty) result says so
        elements = driver.find_elements(By.TAG_NAME, "body") if blank else driver.find_elements(By.CSS_SELECTOR, selector)
        return [str(e.get_attribute("outerHTML") if self.return_html else e.text) for e in elements]
