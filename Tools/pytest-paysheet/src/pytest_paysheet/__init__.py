"""pytest-paysheet: test a real checkout page for Apple Pay in pytest, against `paysheet serve`.

The fixtures (see docs/testing-your-checkout.md in the Paysheet repository) start `paysheet serve`,
inject its drop-in `paysheet.js` into a Playwright page or a Selenium driver before the page's own
scripts, and drive the simulated shopper through `window.paysheet`. This is a simulation: no real
payment sheet is shown and no real card is charged.
"""
from .errors import PaysheetSetupError
from .inject import init_script
from .server import PaysheetAPI, PaysheetServer
from .shopper import Shopper

__all__ = ["PaysheetAPI", "PaysheetServer", "PaysheetSetupError", "Shopper", "init_script"]
