"""The drop-in as an init script: `window.PAYSHEET_CONFIG = {...};` and the text of paysheet.js."""
from __future__ import annotations

import json
import os
import shutil
import urllib.request
from typing import Optional

from .errors import PaysheetSetupError

# `paysheet.configure`'s options that PAYSHEET_CONFIG may carry besides `server`.
CONFIG_KEYS = ("wallet", "options", "requireUserGesture", "clock", "merchantCertificate", "merchantSessions")


def drop_in_text(server_url: str) -> str:
    """paysheet.js as `paysheet serve` at `server_url` serves it."""
    with urllib.request.urlopen(server_url.rstrip("/") + "/paysheet.js", timeout=10) as answer:
        return answer.read().decode("utf-8")


def init_script(server_url: str, config: Optional[dict] = None, drop_in: Optional[str] = None) -> str:
    """A script to run before a page's own scripts (Playwright's `add_init_script`, the DevTools
    protocol's `Page.addScriptToEvaluateOnNewDocument`) that makes the page behave as if it had
    loaded `<script src="SERVER/paysheet.js">` with `config`'s options."""
    config = dict(config or {})
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise PaysheetSetupError(f"unknown paysheet option(s) {', '.join(unknown)}; known: {', '.join(CONFIG_KEYS)}")
    config["server"] = server_url.rstrip("/")
    text = drop_in if drop_in is not None else drop_in_text(server_url)
    return "window.PAYSHEET_CONFIG = " + json.dumps(config) + ";\n" + text


def browser_path(explicit: Optional[str]) -> str:
    """The Chromium to drive: `explicit` (--paysheet-browser or PAYSHEET_BROWSER), else Debian's."""
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise PaysheetSetupError(f"no browser: {explicit} (--paysheet-browser / PAYSHEET_BROWSER) is not an "
                                 "executable file")
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise PaysheetSetupError("no browser: no chromium, chromium-browser or google-chrome on PATH; install one "
                             "(Debian: apt-get install chromium chromium-driver) or set --paysheet-browser or "
                             "PAYSHEET_BROWSER to its executable")


def chromedriver_path(explicit: Optional[str]) -> str:
    """The chromedriver for Selenium: `explicit` (--paysheet-chromedriver or CHROMEDRIVER), else on PATH."""
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise PaysheetSetupError(f"no chromedriver: {explicit} (--paysheet-chromedriver / CHROMEDRIVER) is not an "
                                 "executable file")
    found = shutil.which("chromedriver")
    if found:
        return found
    raise PaysheetSetupError("no chromedriver on PATH for Selenium; install it (Debian: apt-get install "
                             "chromium-driver) or set --paysheet-chromedriver or CHROMEDRIVER")
