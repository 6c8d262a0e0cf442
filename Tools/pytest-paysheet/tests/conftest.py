"""The plugin's own tests: a real `paysheet serve`, a merchant's site on another origin, Chromium."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from merchant_site.site import MerchantSite  # noqa: E402


@pytest.fixture(scope="session")
def merchant_site(paysheet_server, paysheet_api_key):
    """The merchant's site (checkout.html and its back end) at http://localhost:PORT, another origin than
    paysheet serve's http://127.0.0.1:PORT."""
    site = MerchantSite(paysheet_server.url, paysheet_api_key)
    yield site
    site.close()


@pytest.fixture
def slow_back_end(merchant_site):
    """The merchant's back end, whose `hold(step)` keeps that step's calls unanswered until the test ends."""
    merchant_site.held.clear()
    merchant_site.released.clear()
    yield merchant_site
    merchant_site.release()
    merchant_site.held.clear()
