"""The Python end of the bridge: hello, long-poll for a batch, acknowledge, report progress (http.client on
loopback, bearer token). Knows nothing of slime; reconnect policy lives in rollout.py.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import urllib.parse
import uuid
from dataclasses import dataclass

BRIDGE_VERSION = 1
BRIDGE_URL_ENV = "OPENCLAW_RL_BRIDGE"
BRIDGE_TOKEN_ENV = "OPENCLAW_RL_BRIDGE_TOKEN"
METRICS_PATH = "/v1/metrics"
BATCH_CONTENT_TYPE = "application/vnd.openclaw-rl.batch"
HELLO_PATH = "/v1/hello"

# How a kept-alive connection that the server closed shows up when it is used again (the bridge closes idle
# connections after its keep-alive timeout, and slime's training step is longer than that).
_CLOSED_BY_PEER = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class BridgeError(RuntimeError):
    """A bridge answer that retrying will not fix (bad token, protocol mismatch)."""


class BridgeUnavailable(RuntimeError):
    """The orchestrator cannot be reached right now (restarting, not up yet); retry with backoff."""


class BatchUnknown(RuntimeError):
    """The orchestrator no longer holds this batch for us (handed out again); drop it and fetch a new one."""


@dataclass
class BridgeEndpoint:
    url: str
    token: str

    @staticmethod
    def from_environment() -> "BridgeEndpoint":
        url = os.environ.get(BRIDGE_URL_ENV, "")
        token = os.environ.get(BRIDGE_TOKEN_ENV, "")
        if not url or not token:
            raise BridgeError(
                f"{BRIDGE_URL_ENV} and {BRIDGE_TOKEN_ENV} must be set in slime's environment "
                "(openclaw-rl start puts them in the Ray runtime env); is this slime job started by openclaw-rl?"
            )
        return BridgeEndpoint(url=url, token=token)


class BridgeClient:
    def __init__(self, endpoint: BridgeEndpoint, session: str | None = None, connect_timeout_s: float = 10.0):
        parsed = urllib.parse.urlparse(endpoint.url)
        if parsed.scheme != "http" or not parsed.hostname or not parsed.port:
            raise BridgeError(f"{BRIDGE_URL_ENV}={endpoint.url!r} is not an http://host:port address")
        self._host = parsed.hostname
        self._port = parsed.port
        self._token = endpoint.token
        self._connect_timeout_s = connect_timeout_s
        self._connection: http.client.HTTPConnection | None = None
        self._hello_body: dict | None = None  # the last hello, said again first on every new connection
        self.session = session or uuid.uuid4().hex
        # whether the last batch-wait said the orchestrator paused training (evaluation.stop_if_worse)
        self.training_paused = False

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> bool:
        """Ready to send; True when the request goes out on a new connection (a kept-alive one the server closed
        while it sat idle is dropped first)."""
        connection = self._connection
        if connection is not None and connection.sock is not None and _closed_by_peer(connection.sock):
            self.close()
            connection = None
        if connection is None:
            self._connection = http.client.HTTPConnection(self._host, self._port, timeout=self._connect_timeout_s)
            return True
        return connection.sock is None  # (http.client opens a new one by itself after a "Connection: close" answer)

    def _exchange(self, path: str, payload: bytes, timeout_s: float) -> tuple[int, str, bytearray]:
        connection = self._connection
        connection.timeout = timeout_s
        if connection.sock is not None:
            connection.sock.settimeout(timeout_s)
        connection.request("POST", path, body=payload, headers={"Authorization": f"Bearer {self._token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        length_header = response.getheader("Content-Length")
        if length_header is None:
            data = bytearray(response.read())  # (the bridge always sends a length; a body without one ends at close)
        else:
            length = int(length_header)
            data = bytearray(length)
            view = memoryview(data)
            received = 0
            while received < length:
                count = response.readinto(view[received:])
                if not count:
                    raise BridgeUnavailable(f"bridge answer cut short ({received} of {length} bytes)")
                received += count
        # Every answer is finished before the connection carries the next request: http.client marks a response done
        # only once it is read to its end, and a body it never reads (the 204 to /v1/progress, any empty answer) is
        # never ended by the loop above, so the next getresponse() on this connection would fail (ResponseNotReady).
        response.close()
        content_type = response.getheader("Content-Type") or ""
        return response.status, content_type, data

    def _post(self, path: str, body: dict, timeout_s: float) -> tuple[int, str, bytearray]:
        payload = json.dumps(body).encode("utf-8")
        fresh = self._connect()
        try:
            if fresh and self._hello_body is not None and path != HELLO_PATH:
                # a new connection may reach a restarted orchestrator: it learns the routers from the hello
                status, _, data = self._exchange(HELLO_PATH, json.dumps(self._hello_body).encode("utf-8"), 30.0)
                if status != 200:
                    raise _answer_error(HELLO_PATH, status, _json_or_none(data))
            return self._exchange(path, payload, timeout_s)
        except BridgeUnavailable:
            self.close()  # (an answer cut short: the connection is in an unknown state)
            raise
        except _CLOSED_BY_PEER as error:
            self.close()
            if fresh:
                raise BridgeUnavailable(f"bridge at {self._host}:{self._port} unreachable: {error}") from error
        except (OSError, socket.timeout, http.client.HTTPException) as error:
            self.close()
            raise BridgeUnavailable(f"bridge at {self._host}:{self._port} unreachable: {error}") from error
        # The kept-alive connection was closed by the server between our calls (its keep-alive timeout) though the
        # check above did not see it yet: the normal case, so once more on a new connection, without a warning.
        return self._post(path, body, timeout_s)

    def _json(self, path: str, body: dict, timeout_s: float = 30.0, accept: tuple[int, ...] = (200,)) -> tuple[int, dict | None]:
        status, _, data = self._post(path, body, timeout_s)
        parsed = _json_or_none(data)
        if status not in accept:
            raise _answer_error(path, status, parsed)
        return status, parsed

    def hello(self, routers: dict) -> dict:
        body = {"version": BRIDGE_VERSION, "type": "hello", "session": self.session, "pid": os.getpid(), "routers": routers}
        _, answer = self._json(HELLO_PATH, body)
        self._hello_body = body
        return answer or {}

    def request_batch(self, rollout_id: int, size: int, wait_ms: int, holding: list[str] | None = None) -> tuple[bytearray | None, int]:
        """(frame, ready): the frame when `size` samples were ready within `wait_ms`, else (None, ready count); then
        `training_paused` says whether the orchestrator paused training (evaluation.stop_if_worse). `holding`: batches
        handed to the trainer and not acknowledged yet; any other batch of ours goes back."""
        body = {"version": BRIDGE_VERSION, "type": "batch-request", "session": self.session, "rolloutId": rollout_id, "size": size, "waitMs": wait_ms}
        if holding:
            body["holding"] = list(holding)
        status, content_type, data = self._post("/v1/batch", body, wait_ms / 1000.0 + 30.0)
        self.training_paused = False
        if status == 200 and content_type.startswith(BATCH_CONTENT_TYPE):
            return data, size
        parsed = _json_or_none(data)
        if status == 200 and parsed and parsed.get("type") == "batch-wait":
            self.training_paused = bool(parsed.get("paused", False))
            return None, int(parsed.get("ready", 0))
        raise _answer_error("/v1/batch", status, parsed)

    def ack(self, rollout_id: int, batch_id: str) -> bool:
        """True when acknowledged now, False when it was already; BatchUnknown when the batch is not ours any more."""
        body = {"version": BRIDGE_VERSION, "type": "ack", "session": self.session, "rolloutId": rollout_id, "batchId": batch_id}
        status, answer = self._json("/v1/ack", body, accept=(200, 409))
        if status == 409:
            raise BatchUnknown((answer or {}).get("message", f"batch {batch_id} unknown"))
        return not (answer or {}).get("already", False)

    def trainer_metrics(self, step: int, metrics: dict[str, float], timeout_s: float = 5.0) -> None:
        """One training step's metrics as slime logged them (train/loss, train/grad_norm, ...)."""
        body = {"version": BRIDGE_VERSION, "type": "trainer-metrics", "session": self.session, "pid": os.getpid(), "step": step, "metrics": metrics}
        self._json(METRICS_PATH, body, timeout_s=timeout_s, accept=(204,))

    def progress(self, rollout_id: int, ready: int, size: int, waited_ms: float) -> None:
        body = {"version": BRIDGE_VERSION, "type": "progress", "session": self.session, "rolloutId": rollout_id, "ready": ready, "size": size, "waitedMs": waited_ms}
        self._json("/v1/progress", body, accept=(204,))


def _closed_by_peer(sock: socket.socket) -> bool:
    """An idle HTTP connection has nothing to read; readable means the server closed it (EOF or reset)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _json_or_none(data: bytearray):
    return json.loads(data.decode("utf-8")) if data else None


def _answer_error(path: str, status: int, body: dict | None) -> Exception:
    message = (body or {}).get("message", "") if isinstance(body, dict) else ""
    if status >= 500:
        return BridgeUnavailable(f"bridge {path} answered {status}: {message}")
    hint = " (check OPENCLAW_RL_BRIDGE_TOKEN)" if status == 401 else ""
    return BridgeError(f"bridge {path} answered {status}: {message}{hint}")
