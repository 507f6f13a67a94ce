"""Serving a worker's REST API (or a composed app) with uvicorn on a background thread, on a socket
bound beforehand (`rest.listener`: a taken port fails the start before the worker joins its cluster)."""

from __future__ import annotations

import threading
from typing import Any

from pyconnect.runtime.worker import Worker
from rest.listener import BoundListener

# Idle keep-alive connections close after Jetty's default idle timeout, as Connect's do. uvicorn's own 5 s
# closed connections that clients were about to reuse: a client alternating between workers under load
# had a request reset (ECONNRESET) on a connection the server closed as the request went out.
KEEP_ALIVE_S = 30


class RestServer:
    """The worker's REST API on its bound listener, served by uvicorn on a background thread."""

    def __init__(self, worker: Worker, listener: BoundListener, app: Any = None) -> None:
        """Serve `app` (default: this worker's REST API) on `listener` (bound from the worker's `listeners`)."""
        import uvicorn

        from rest.app import create_app

        tls: dict[str, Any] = {}
        if listener.scheme == "https":
            from rest.security import tls_files

            files = tls_files(worker.config.raw)
            tls = {"ssl_certfile": files.certfile, "ssl_keyfile": files.keyfile or files.certfile,
                   "ssl_keyfile_password": files.password}
        self.listener = listener
        self.server = uvicorn.Server(uvicorn.Config(app or create_app(worker), host=listener.host,
                                                    port=listener.port, log_level="warning", lifespan="off",
                                                    timeout_keep_alive=KEEP_ALIVE_S, **tls))
        # uvicorn installs no signal handlers outside the main thread; the worker owns SIGTERM/SIGINT.
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [listener.socket]}, name="rest",
                                       daemon=True)

    def start(self) -> RestServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)
