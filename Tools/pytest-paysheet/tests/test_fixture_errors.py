"""The fixtures' own failures, each run in a pytest of its own (pytester): a message naming what is wrong."""
import os
import socket
import stat

import pytest

from pytest_paysheet.server import find_binary

USES_SERVER = """
def test_uses_the_server(paysheet_server):
    assert paysheet_server.url
"""

USES_PAGE = """
def test_uses_a_page(paysheet_page):
    pass
"""

USES_SELENIUM = """
def test_uses_a_driver(paysheet_selenium):
    pass
"""


@pytest.fixture
def inner(pytester, paysheet_server, monkeypatch):
    """A pytest in a subprocess, with this run's paysheet binary (its checkout is not above pytester's folder)."""
    monkeypatch.setenv("PAYSHEET_BIN", paysheet_server.binary)
    return pytester


def failure_text(result):
    assert result.ret != 0, result.stdout.str()
    return result.stdout.str()


def test_a_missing_binary_is_named(inner, tmp_path):
    inner.makepyfile(USES_SERVER)
    missing = tmp_path / "nowhere" / "paysheet"
    text = failure_text(inner.runpytest_subprocess("--paysheet-bin", str(missing)))
    assert f"pytest-paysheet: paysheet binary not found: {missing} does not exist" in text
    assert "swift build --product paysheet" in text
    assert "Traceback" not in text


def test_no_binary_anywhere_lists_where_it_looked(tmp_path, monkeypatch):
    (tmp_path / "Package.swift").write_text("// a checkout that was never built\n")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    from pytest_paysheet import PaysheetSetupError
    with pytest.raises(PaysheetSetupError) as failure:
        find_binary(None, tmp_path)
    assert str(failure.value).startswith(f"paysheet binary not found (looked at {tmp_path}/.build/debug/paysheet, "
                                         f"{tmp_path}/.build/release/paysheet, paysheet on PATH)")


def test_a_port_in_use_is_named(inner):
    inner.makepyfile(USES_SERVER)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        text = failure_text(inner.runpytest_subprocess("--paysheet-port", str(port)))
    assert f"pytest-paysheet: port 127.0.0.1:{port} is in use" in text
    assert "leave --paysheet-port / PAYSHEET_PORT unset for a free port" in text


def test_a_server_that_exits_at_start_is_named_with_its_output(inner, monkeypatch):
    # A real refusal: production mode with the sandbox's defaults exits with status 2, one line per problem.
    monkeypatch.setenv("PAYSHEET_MODE", "production")
    inner.makepyfile(USES_SERVER)
    text = failure_text(inner.runpytest_subprocess())
    assert "pytest-paysheet: paysheet serve did not start: it exited with status 2 before answering http://127.0.0.1:" in text
    assert "serve.log):" in text
    assert "production" in text


def test_a_server_that_does_not_answer_in_time_is_named(inner):
    inner.makepyfile(USES_SERVER)
    text = failure_text(inner.runpytest_subprocess("--paysheet-start-timeout", "0"))
    assert "pytest-paysheet: paysheet serve did not start: no answer from http://127.0.0.1:" in text
    assert "/health within 0 s (--paysheet-start-timeout); its output (" in text


def test_no_browser_is_named_for_playwright(inner, tmp_path):
    inner.makepyfile(USES_PAGE)
    text = failure_text(inner.runpytest_subprocess("--paysheet-browser", str(tmp_path / "no-chromium")))
    assert f"pytest-paysheet: no browser: {tmp_path / 'no-chromium'} (--paysheet-browser / PAYSHEET_BROWSER) is not an executable file" in text


def test_no_browser_is_named_for_selenium(inner, tmp_path):
    inner.makepyfile(USES_SELENIUM)
    text = failure_text(inner.runpytest_subprocess("--paysheet-browser", str(tmp_path / "no-chromium")))
    assert "pytest-paysheet: no browser:" in text


def test_a_browser_that_cannot_start_is_named(inner, tmp_path):
    # An executable that is no browser: Playwright cannot launch it.
    fake = tmp_path / "not-a-browser"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    inner.makepyfile(USES_PAGE)
    text = failure_text(inner.runpytest_subprocess("--paysheet-browser", str(fake)))
    assert f"pytest-paysheet: no browser: Playwright could not launch {fake}" in text


def test_an_unknown_drop_in_option_is_named(inner):
    inner.makepyfile("""
import pytest

@pytest.mark.paysheet(clok="virtual")
def test_misspelt(paysheet_page):
    pass
""")
    text = failure_text(inner.runpytest_subprocess())
    assert "pytest-paysheet: unknown paysheet option(s) clok; known: wallet, options, requireUserGesture, clock" in text
