"""The pytest plugin (entry point `pytest11: paysheet`): options and fixtures.

    paysheet_server     session: a running `paysheet serve` (url, api_key, data, log_path)
    paysheet_api_key    session: a merchant API key for it
    paysheet_api        session: its merchant API (create_order, order, call)
    paysheet_order      a factory: paysheet_order(lines=[("Green tea", "25.00")], currency="CNY", **body)
    paysheet_config     the drop-in's options for this test (override it, or mark the test
                        @pytest.mark.paysheet(clock="virtual", wallet=..., requireUserGesture=False, ...))
    paysheet_init_script  the init script: window.PAYSHEET_CONFIG = {...}; + paysheet.js
    paysheet_page       a Playwright page (Chromium) with the drop-in injected before the page's scripts
    paysheet_selenium   a Selenium Chrome driver with the drop-in injected (DevTools protocol)
    shopper             the simulated shopper of paysheet_page (or of paysheet_selenium when the test uses it)
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from .errors import PaysheetSetupError
from .inject import browser_path, chromedriver_path, drop_in_text, init_script
from .server import PaysheetAPI, PaysheetServer, find_binary
from .shopper import Shopper


def pytest_addoption(parser):
    group = parser.getgroup("paysheet", "paysheet serve and its browser drop-in")
    group.addoption("--paysheet-bin", default=None,
                    help="the paysheet binary (default: PAYSHEET_BIN, else .build/debug/paysheet of the Paysheet "
                         "checkout at or above the rootdir, else paysheet on PATH)")
    group.addoption("--paysheet-port", type=int, default=None,
                    help="the port paysheet serve listens on (default: PAYSHEET_PORT, else a free one)")
    group.addoption("--paysheet-start-timeout", type=float, default=None,
                    help="seconds to wait for paysheet serve to answer /health (default 60)")
    group.addoption("--paysheet-browser", default=None,
                    help="the Chromium executable (default: PAYSHEET_BROWSER, else chromium on PATH)")
    group.addoption("--paysheet-chromedriver", default=None,
                    help="chromedriver for paysheet_selenium (default: CHROMEDRIVER, else chromedriver on PATH)")
    group.addoption("--paysheet-headed", action="store_true", default=False,
                    help="show the browser window (default: headless)")


def pytest_configure(config):
    config.addinivalue_line("markers", "paysheet(**options): the drop-in's options for this test (wallet, options, "
                                       "clock, requireUserGesture, merchantCertificate, merchantSessions)")


def _setting(request, option, variable):
    value = request.config.getoption(option)
    return value if value is not None else os.environ.get(variable) or None


def _setup(action):
    """`action()`, a setup error failing the test with its message alone (no traceback)."""
    try:
        return action()
    except PaysheetSetupError as e:
        message = str(e)
    # Outside the except: the failure is this one line, not "during handling of the above exception".
    pytest.fail(f"pytest-paysheet: {message}", pytrace=False)


@pytest.fixture(scope="session")
def paysheet_server(request, tmp_path_factory):
    """A `paysheet serve` (sandbox mode) for the session: a free port (or --paysheet-port), its own data
    folder, stopped at the end. Its output is in `paysheet_server.log_path`."""
    def start():
        binary = find_binary(_setting(request, "--paysheet-bin", "PAYSHEET_BIN"), Path(str(request.config.rootpath)))
        port = _setting(request, "--paysheet-port", "PAYSHEET_PORT")
        timeout = request.config.getoption("--paysheet-start-timeout")
        return PaysheetServer(binary, port=int(port) if port is not None else None,
                              data=str(tmp_path_factory.mktemp("paysheet-data")),
                              start_timeout=60.0 if timeout is None else timeout).start()
    server = _setup(start)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def paysheet_api_key(paysheet_server) -> str:
    """A merchant API key of `paysheet_server` (`Authorization: Bearer …` for /v1)."""
    return paysheet_server.api_key


@pytest.fixture(scope="session")
def paysheet_api(paysheet_server, paysheet_api_key) -> PaysheetAPI:
    """`paysheet_server`'s merchant API, called with the key: create_order(...), order(id), call(method, path, body)."""
    return PaysheetAPI(paysheet_server.url, paysheet_api_key)


@pytest.fixture
def paysheet_order(paysheet_api):
    """Creates orders: `paysheet_order(lines=[("Green tea", "25.00")], currency="CNY", delivery="ship", ...)`
    returns the server's order (id, paymentRequest, clientSecret, amount, …)."""
    return paysheet_api.create_order


@pytest.fixture
def paysheet_config(request) -> dict:
    """The drop-in's options for this test: those of its @pytest.mark.paysheet(...) markers (nearest last)."""
    config = {}
    for marker in reversed(list(request.node.iter_markers("paysheet"))):
        config.update(marker.kwargs)
    return config


@pytest.fixture(scope="session")
def paysheet_drop_in(paysheet_server) -> str:
    """The text of paysheet.js as paysheet_server serves it."""
    return drop_in_text(paysheet_server.url)


@pytest.fixture
def paysheet_init_script(paysheet_server, paysheet_drop_in, paysheet_config) -> str:
    """`window.PAYSHEET_CONFIG = {server, ...paysheet_config};` followed by paysheet.js."""
    return _setup(lambda: init_script(paysheet_server.url, paysheet_config, paysheet_drop_in))


@pytest.fixture(scope="session")
def paysheet_browser_path(request) -> str:
    return _setup(lambda: browser_path(_setting(request, "--paysheet-browser", "PAYSHEET_BROWSER")))


@pytest.fixture(scope="session")
def paysheet_playwright_browser(request, paysheet_browser_path):
    """A Playwright Chromium launched from the system's browser (no Playwright browser download)."""
    def launch():
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise PaysheetSetupError("paysheet_page needs Playwright for Python: pip install playwright (no "
                                     "`playwright install` is needed: the system's Chromium is used)") from None
        manager = sync_playwright().start()
        try:
            return manager, manager.chromium.launch(executable_path=paysheet_browser_path,
                                                    headless=not request.config.getoption("--paysheet-headed"),
                                                    args=["--no-sandbox", "--disable-dev-shm-usage"])
        except Exception as e:
            manager.stop()
            raise PaysheetSetupError(f"no browser: Playwright could not launch {paysheet_browser_path}: "
                                     f"{first_line(e)}") from None
    manager, browser = _setup(launch)
    yield browser
    browser.close()
    manager.stop()


@pytest.fixture
def paysheet_page(paysheet_playwright_browser, paysheet_init_script):
    """A new Playwright page (its own context, English) whose every document gets the drop-in before its scripts."""
    context = paysheet_playwright_browser.new_context(locale="en-US", bypass_csp=True)
    # Every document of the context, frames included, as if each had loaded paysheet.js.
    context.add_init_script(script=paysheet_init_script)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def paysheet_selenium(request, paysheet_browser_path, paysheet_init_script):
    """A Selenium Chrome driver whose every document gets the drop-in before its scripts (CDP)."""
    def start():
        try:
            from selenium import webdriver
        except ImportError:
            raise PaysheetSetupError("paysheet_selenium needs Selenium: pip install selenium") from None
        driver_path = chromedriver_path(_setting(request, "--paysheet-chromedriver", "CHROMEDRIVER"))
        try:
            return webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver_path),
                                    options=_chrome_options(webdriver, request, paysheet_browser_path))
        except Exception as e:
            raise PaysheetSetupError(f"no browser: Selenium could not start {paysheet_browser_path} with "
                                     f"{driver_path}: {first_line(e)}") from None
    driver = _setup(start)
    try:
        driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": paysheet_init_script})
        yield driver
    finally:
        driver.quit()


def _chrome_options(webdriver, request, browser):
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=en-US",
                     "--window-size=1000,1000"]:
        options.add_argument(argument)
    if not request.config.getoption("--paysheet-headed"):
        options.add_argument("--headless=new")
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US"})
    return options


def first_line(error) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


@pytest.fixture
def shopper(request) -> Shopper:
    """The simulated shopper of the test's page: paysheet_selenium's when the test uses it, else paysheet_page's."""
    if "paysheet_selenium" in request.fixturenames:
        return Shopper.for_selenium(request.getfixturevalue("paysheet_selenium"))
    return Shopper.for_playwright(request.getfixturevalue("paysheet_page"))
