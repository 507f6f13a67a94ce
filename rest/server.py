"""Serving a worker's REST API (or a composed app) with uvicorn on a background thread, on a socket
bound beforehand (`rest.listener`: a taken port fails the start before the worker joins its cluster)."""

from __future__ import annotations

import threading
import time
from typing import Any

from pyconnect.runtime.worker import Worker
from rest.listener import BoundListener, BoundListeners, ListenerBindError

# Idle keep-alive connections close after Jetty's default idle timeout, as Connect's do. uvicorn's own 5 s
# closed connections that clients were about to reuse: a client alternating between workers under load
# had a request reset (ECONNRESET) on a connection the server closed as the request went out.
KEEP_ALIVE_S = 30
# uvicorn starts serving a bound socket in well under a second; this bounds a start that hangs.
START_TIMEOUT_S = 15.0


class RestServer:
    """The worker's REST API on its bound listener, served by uvicorn on a background thread."""

    def __init__(self, worker: Worker, listener: BoundListener, app: Any = None) -> None:
        """Serve `app` (default: this worker's REST API) on `listener` (bound from the worker's `listeners`);
        ListenerBindError if its TLS files do not load. Create it before the worker starts, start it after."""
        import uvicorn

        from rest.app import create_app

        tls: dict[str, Any] = {}
        if listener.scheme == "https":
            from rest.security import tls_files

            files = tls_files(worker.config.raw)
            tls = {"ssl_certfile": files.certfile, "ssl_keyfile": files.keyfile or files.certfile,
                   "ssl_keyfile_password": files.password}
        self.listener = listener
        config = uvicorn.Config(app or create_app(worker), host=listener.host, port=listener.port,
                                log_level="warning", lifespan="off", timeout_keep_alive=KEEP_ALIVE_S, **tls)
        try:  # here, not on the serving thread: a bad certificate or key stops the start before the worker joins
            config.load()
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
            raise ListenerBindError(f"Unable to initialize REST server on {listener.url}: {exc}") from exc
        self.server = uvicorn.Server(config)
        # uvicorn installs no signal handlers outside the main thread; the worker owns SIGTERM/SIGINT.
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [listener.socket]}, name="rest",
                                       daemon=True)

    def start(self, timeout: float = START_TIMEOUT_S) -> RestServer:
        """Serve, and return once uvicorn serves; ListenerBindError if it stopped or did not start in `timeout`
        (a bad TLS file, say): a process must not run on without its REST API."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ListenerBindError(f"Unable to initialize REST server on {self.listener.url}: it did not start "
                                        "(the log says why)")
            self.thread.join(0.02)  # the wait itself: wakes early if the serving thread ends
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread.ident is not None:  # started
            self.thread.join(5)


class RestServers:
    """Every listener of one worker: its `listeners` serve the REST API (one app, one server per listener:
    http and https listeners differ in TLS), its `admin.listeners` serve /admin alone (KIP-495)."""

    def __init__(self, worker: Worker, bound: BoundListeners, app: Any = None) -> None:
        """ListenerBindError if a listener's TLS files do not load. `app`: served on `listeners` instead of
        the worker's REST API (dedicated MirrorMaker's composed app)."""
        from rest.app import create_admin_app, create_app

        admin = worker.config.admin_listeners
        main_app = app or create_app(worker, admin=admin is None)
        self.servers = [RestServer(worker, listener, main_app) for listener in bound.main]
        if bound.admin:
            admin_app = create_admin_app(worker)
            self.servers += [RestServer(worker, listener, admin_app) for listener in bound.admin]

    def start(self) -> RestServers:
        """Serve on every listener; ListenerBindError (the started ones stopped) if one does not start."""
        for i, server in enumerate(self.servers):
            try:
                server.start()
            except ListenerBindError:
                for started in self.servers[:i]:
                    started.stop()
                raise
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
