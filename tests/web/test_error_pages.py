"""404, 405 and 500 in the site's layout, with a language and a viewport (issue #16)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient


def _is_site_page(text: str) -> bool:
    return ('<html lang="en">' in text and 'name="viewport"' in text
            and '<main id="content">' in text and "<h1>" in text)


def test_not_found_and_wrong_method_have_the_site_layout(client: FlaskClient) -> None:
    missing = client.get("/no/such/page")
    assert missing.status_code == 404 and _is_site_page(missing.text)
    assert "Page not found" in missing.text
    wrong = client.delete("/")
    assert wrong.status_code == 405 and _is_site_page(wrong.text)
    assert "GET" in wrong.headers["Allow"]


def test_a_server_error_has_the_site_layout(app: Flask) -> None:
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/boom-for-test")
    def boom() -> str:
        raise RuntimeError("a bug")

    failed = app.test_client().get("/boom-for-test")
    assert failed.status_code == 500 and _is_site_page(failed.text)
    assert "Something went wrong" in failed.text and "a bug" not in failed.text
