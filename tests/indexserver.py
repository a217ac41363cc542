"""A package index on loopback, for tests that must never touch the network."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping


class IndexServer:
    """Serves ``projects`` (name → list of file dicts) in the Simple JSON API (PEP 691)."""

    def __init__(self, projects: Mapping[str, list[dict[str, Any]]]) -> None:
        self.projects = dict(projects)
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                name = self.path.strip("/").split("/")[-1]
                if name not in server.projects:
                    self.send_error(404)
                    return
                body = json.dumps(
                    {"meta": {"api-version": "1.1"}, "name": name, "files": server.projects[name]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/simple"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> IndexServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def wheel(
    name: str,
    version: str,
    tag: str,
    *,
    requires_python: str | None = None,
    uploaded: str = "2024-01-01T00:00:00Z",
    yanked: bool = False,
) -> dict[str, Any]:
    return {
        "filename": f"{name}-{version}-{tag}.whl",
        "url": f"https://example.invalid/{name}-{version}.whl",
        "hashes": {},
        "requires-python": requires_python,
        "upload-time": uploaded,
        "yanked": yanked,
    }


def sdist(name: str, version: str, uploaded: str = "2024-01-01T00:00:00Z") -> dict[str, Any]:
    return {
        "filename": f"{name}-{version}.tar.gz",
        "url": "x",
        "hashes": {},
        "upload-time": uploaded,
    }


def iter_files(projects: Mapping[str, list[dict[str, Any]]]) -> Iterator[str]:
    for files in projects.values():
        for f in files:
            yield f["filename"]
