"""``designer sync``'s client against answers no Nautobot gives: the token goes to ``--url``'s origin only, every
answer is bounded in time, size and pages, and every broken answer is exit 2 naming what was expected.

Each case runs a small HTTP server of its own on 127.0.0.1 (Python's ``http.server``) that answers as a hostile or
broken server would; a second one on another port stands for "another host" and records every request it gets.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from designer.errors import PrerequisiteError
from designer.files import Cap
from designer.sync import nautobot
from tests.conftest import ROOT
from tests.test_intent_errors import run_cli

TOKEN = "0123456789abcdef0123456789abcdef01234567"
Answer = Callable[[BaseHTTPRequestHandler], None]


@contextmanager
def server(answer: Answer) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A server on a free 127.0.0.1 port answering every request with ``answer``; its URL and the headers of every
    request it got."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(dict(self.headers))
            answer(self)

        do_POST = do_PATCH = do_DELETE = do_GET

        def log_message(self, *_: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False  # a handler still trickling when the test is done is left to its daemon thread
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def body(status: int, data: bytes, content_type: str = "application/json", **headers: str) -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    return answer


def page(results: object, next_link: object = None) -> Answer:
    return body(200, json.dumps({"count": 1, "next": next_link, "results": results}).encode())


def refused(api: nautobot.Api, call: Callable[[nautobot.Api], object]) -> str:
    with pytest.raises(PrerequisiteError) as raised:
        call(api)
    return str(raised.value)


def statuses(api: nautobot.Api) -> object:
    return api.every("extras/statuses")


def test_a_redirect_to_another_host_is_refused_and_the_token_never_goes_there() -> None:
    with (
        server(page([])) as (elsewhere, there),
        server(lambda handler: body(302, b"", Location=f"{elsewhere}/api/extras/statuses/")(handler)) as (url, _),
    ):
        message = refused(nautobot.Api(url, TOKEN), statuses)
    assert "redirected GET to another host" in message and elsewhere in message
    assert there == [] and TOKEN not in message


def test_a_redirect_on_the_same_host_is_followed() -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if "moved" in handler.path:
            page([{"id": "1", "name": "Active"}])(handler)
        else:
            body(302, b"", Location="/api/moved/")(handler)

    with server(answer) as (url, seen):
        assert nautobot.Api(url, TOKEN).every("extras/statuses") == [{"id": "1", "name": "Active"}]
    assert [headers["Authorization"] for headers in seen] == [f"Token {TOKEN}"] * 2


def test_a_next_link_to_another_host_is_refused_and_the_token_never_goes_there() -> None:
    with server(page([])) as (elsewhere, there), server(page([], f"{elsewhere}/api/x/?page=2")) as (url, _):
        message = refused(nautobot.Api(url, TOKEN), statuses)
    assert "answered a link to another host" in message and there == []


def test_a_next_link_to_itself_and_endless_pages_are_bounded() -> None:
    with server(lambda handler: page([], f"http://{handler.headers['Host']}{handler.path}")(handler)) as (url, _):
        assert "links back to one of them" in refused(nautobot.Api(url, TOKEN), statuses)
    count = iter(range(10**6))
    with server(lambda handler: page([], f"http://{handler.headers['Host']}/p{next(count)}")(handler)) as (url, _):
        assert "goes on past 5 pages" in refused(nautobot.Api(url, TOKEN, pages=5), statuses)


def test_an_answer_trickling_in_is_bounded_by_the_whole_requests_time() -> None:
    def trickle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "100")
        handler.end_headers()
        for _ in range(100):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.05)

    with server(trickle) as (url, _):
        start = time.monotonic()
        message = refused(nautobot.Api(url, TOKEN, timeout_s=1), statuses)
        elapsed = time.monotonic() - start
    assert "did not answer GET" in message and "within 1 s" in message
    assert elapsed < 3, elapsed  # the answer would have taken 5 s


def test_an_answer_larger_than_its_cap_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nautobot, "SOURCE_OF_TRUTH", Cap("an answer of a source of truth", 1 << 20))
    with server(body(200, b"[" + b"0," * (1 << 20) + b"0]")) as (url, _):
        assert "with more than the 1 MiB an answer of a source of truth may hold" in refused(
            nautobot.Api(url, TOKEN), statuses
        )


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (body(200, b"<html>Nautobot</html>", "text/html"), "not JSON, as its API answers"),
        (body(200, b"[1, 2]"), "expected a page: an object with its results"),
        (page(None), "expected a page whose results are a list"),
        (body(200, b'{"next": null}'), "expected a page whose results are a list"),
        (page([1, "x"]), "expected a list of objects, each with its id"),
        (page([{"name": "Active"}]), "expected a list of objects, each with its id"),
        (page([], 7), "expected a next link or null"),
        (body(200, b""), "expected a page: an object with its results"),
        (body(200, b"[" * 100_000 + b"]" * 100_000), "not JSON, as its API answers"),
        (body(200, b'{"results": [], "count": ' + b"9" * 5000 + b"}"), "not JSON, as its API answers"),
    ],
    ids=["html", "list", "null-results", "no-results", "not-objects", "no-ids", "bad-next", "empty", "deep", "huge"],
)
def test_a_broken_answer_says_what_was_expected(answer: Answer, expected: str) -> None:
    with server(answer) as (url, _):
        message = refused(nautobot.Api(url, TOKEN), statuses)
    assert message.startswith("Nautobot answered ") and "to GET extras/statuses/" in message and expected in message
    assert len(message) < 1000


def test_a_bulk_answer_must_hold_each_object_made() -> None:
    with server(body(200, b'[{"id": "1"}]')) as (url, _):
        message = refused(nautobot.Api(url, TOKEN), lambda api: api.bulk("POST", "dcim/racks", [{}, {}]))
    assert (
        'Nautobot answered [{"id": "1"}] to POST dcim/racks: expected a list of 2 objects, each with its id' in message
    )


def test_the_servers_error_page_is_shortened_escaped_and_never_shows_the_token() -> None:
    def echo(handler: BaseHTTPRequestHandler) -> None:
        page_text = f"\x1b[31mServer Error\x1b[0m\nAuthorization: {handler.headers['Authorization']}\n" + "x" * 5000
        body(500, page_text.encode(), "text/html")(handler)

    with server(echo) as (url, _):
        message = refused(nautobot.Api(url, TOKEN), statuses)
    assert message.startswith("Nautobot refused GET extras/statuses/") and "(500)" in message
    assert TOKEN not in message and "<token>" in message
    assert "\x1b" not in message and "\n" not in message and len(message) < 600


@pytest.mark.parametrize("url", ["not a url", "http://u:p@host:{}", "ftp://host/", "http://user:secret@host/"])
def test_a_url_that_is_not_one_of_a_nautobot_is_exit_2(url: str, tmp_path: Path) -> None:
    code, out, err = run_cli("sync", "nautobot", str(tmp_path), "--url", url, "--token", TOKEN)
    assert (code, out) == (2, "") and "is not an http(s) URL of a Nautobot" in err and "Traceback" not in err
    assert "secret" not in err or "user:secret" in url


def test_plain_http_to_another_host_is_warned_about() -> None:
    assert "in clear text; use https" in (nautobot.Api("http://nautobot.example.com", TOKEN).plain_text_warning() or "")
    for url in ("https://nautobot.example.com", "http://127.0.0.1:8080", "http://localhost", "http://[::1]:80"):
        assert nautobot.Api(url, TOKEN).plain_text_warning() is None


def test_the_command_line_turns_a_broken_answer_into_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert run_cli("build", str(ROOT / "tests" / "intents" / "small-2tier.yaml"), "-o", str(folder))[0] == 0
    with server(body(200, b"<html>not nautobot</html>", "text/html")) as (url, _):
        code, out, err = run_cli("sync", "nautobot", str(folder), "--url", url, "--token", TOKEN)
    assert (code, out) == (2, "") and "not JSON, as its API answers" in err and "Traceback" not in err
