"""Each function in processes of its own, as Lambda runs it: one request at a time per process, a process
reused while warm, more started when requests overlap (up to `LIMIT` per function; a request past it
waits for one to be free). When the functions' environment changes (a test sets a variable), the next
request gets a new parent, as a new version does, and the old parent and its workers exit.

A fresh interpreter (`python -m devstack.workers`, the root) forks one parent per function, which
imports the function's module and runs the before-snapshot hooks once (`partner.core.snapshot`); each
worker is a fork of that parent and runs the after-restore hooks first, as a SnapStart restore does.
The gateway sends a worker each invocation with what the devstack holds in its own process: whether
a test moved the clock (`partner.chain.ports`) and whether faults are set (`devstack.faults`). The
worker then asks the gateway over the same socket, for the time and for a fault on each AWS or
pinning call, so the clock a test moves and the faults' counts and hits stay in one place. Any thread
of the function may ask (the layer's I/O pool does): one question and its answer at a time.

An invocation ends at the function's `Timeout`, as Lambda ends it: the worker is killed, its
environment discarded (the next request gets a fresh one), the log says "Task timed out after N.NN
seconds" and the caller gets `FunctionTimeout` (Lambda's `Sandbox.Timedout`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any

LIMIT = 8  # processes per function
# libraries every function imports: loaded once in the root, before it forks the functions' parents
# (the service's own modules are not: each parent imports them, as each Lambda's init does)
PRELOAD = (
    "boto3",
    "boto3.dynamodb.types",
    "botocore.session",
    "aws_lambda_powertools.event_handler",
    "aws_lambda_powertools.event_handler.middlewares.openapi_validation",
    "aws_lambda_powertools.logging",
    "aws_lambda_powertools.metrics",
    "pydantic",
    "solders.transaction",
    "solders.keypair",
)
_HEADER = struct.Struct("!I")


class FunctionError(Exception):
    """The function failed (or its process died); the text is its traceback."""

    error_type = "Unhandled"


class FunctionTimeout(FunctionError):
    """The invocation ran past the function's Timeout; the worker was killed."""

    error_type = "Sandbox.Timedout"


# the first invocation of a new worker may wait for its function's init (imports, before-snapshot hooks)
# on top of the Timeout: Lambda's init has a limit of its own (10 s; a SnapStart restore, 10 s more)
INIT_SECONDS = 30


# --------------------------------------------------------------------------- framing


def send(sock: socket.socket, message: Any) -> None:
    data = pickle.dumps(message)
    sock.sendall(_HEADER.pack(len(data)) + data)


def _exactly(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def receive(sock: socket.socket) -> Any:
    """The next message; EOFError when the peer is gone."""
    header = _exactly(sock, _HEADER.size)
    data = _exactly(sock, _HEADER.unpack(header)[0]) if header else None
    if data is None:
        raise EOFError
    return pickle.loads(data)


# --------------------------------------------------------------------------- the gateway's side


@dataclass(frozen=True)
class Spec:
    """What a function's parent needs to import it."""

    logical_id: str
    module_path: str
    handler: str
    memory_mb: int
    timeout_s: int

    @classmethod
    def of(cls, fn: Any) -> Spec:
        return cls(fn.logical_id, str(fn.module_path), fn.handler_function, fn.memory_size, fn.timeout)


class WarpedClock:
    """The wall clock plus what the devstack chain was warped since this clock was made (`partnerctl dev
    warp`), so that one warp moves the chain's and the service's time together (`make run` installs it
    as the service's clock). A worker gets the offset with each invocation and adds it to its own wall
    clock (no question over the socket per reading)."""

    def __init__(self, bank: Any) -> None:
        self.bank = bank
        self.start = float(bank.warped)

    def offset(self) -> float:
        return float(self.bank.warped) - self.start

    def __call__(self) -> float:
        return time.time() + self.offset()


def devstack_context() -> dict[str, Any]:
    """What an invocation carries from the gateway's process: whether the clock is a test's (or, for a
    `WarpedClock`, its offset), and whether faults are set. A test's RPC client or signer cannot reach
    another process: refused."""
    from devstack import faults
    from partner.chain import ports

    current = ports.current()
    if (current.rpc, current.sign) != (ports.DEFAULT.rpc, ports.DEFAULT.sign):
        raise RuntimeError("a fake RPC client or signer is installed: it cannot reach the function's process")
    clock = current.clock
    return {
        "clock": clock is not time.time and not isinstance(clock, WarpedClock),
        "warp": clock.offset() if isinstance(clock, WarpedClock) else 0.0,
        "faults": bool(faults.list_faults()),
    }


def _environment() -> dict[str, str]:
    """The functions' environment: this process's, but for what pytest changes at every test phase."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"}


class Pool:
    """The gateway's workers, per function; `invoke` runs one event in one of them."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._lock = threading.Condition()
        self._idle: dict[str, list[socket.socket]] = {}
        self._started: dict[str, int] = {}
        self._version: dict[str, bytes] = {}  # each function's environment and path, as its workers have it
        self._root: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._closed = False
        self._pids: dict[socket.socket, int] = {}  # each worker's process, as it reported it

    def start(self) -> Pool:
        """Start the root now, in the background (its imports off the first request's path)."""

        def root() -> None:
            with self._lock:
                if self._control is None and not self._closed:
                    self._start_root()

        threading.Thread(target=root, name="devstack-workers-root", daemon=True).start()
        return self

    def invoke(self, fn: Any, event: dict[str, Any]) -> Any:
        """The function's result (`fn`: a template Function or a Spec); FunctionError when it raised or
        its process died."""
        spec = fn if isinstance(fn, Spec) else Spec.of(fn)
        version = (_environment(), list(sys.path))
        worker, key = self._take(spec, version)
        try:
            context = devstack_context()
            send(worker, ("invoke", event, context))
            reply = self._serve(worker, spec.timeout_s)
        except TimeoutError:
            self._discard(spec.logical_id, worker)
            message = f"Task timed out after {spec.timeout_s:.2f} seconds"  # Lambda's words
            request = event.get("requestContext", {}).get("requestId") if isinstance(event, dict) else None
            print(f"devstack.workers: {spec.logical_id}: {request or '-'} {message}", file=sys.stderr)
            raise FunctionTimeout(message) from None
        except (EOFError, OSError) as exc:
            self._discard(spec.logical_id, worker)
            raise FunctionError(f"the function's process exited ({type(exc).__name__})") from None
        self._give_back(spec.logical_id, worker, key)
        if reply[0] == "error":
            raise FunctionError(reply[1])
        return reply[1]

    def _serve(self, worker: socket.socket, timeout_s: float) -> tuple[str, Any]:
        """Answer the worker's questions (the time, a fault) until it sends its result; TimeoutError
        when it has not within `timeout_s` (counted once the worker has reported, i.e. after init)."""
        from devstack import faults
        from partner.chain import ports

        deadline = time.monotonic() + timeout_s + (0 if worker in self._pids else INIT_SECONDS)
        while True:
            worker.settimeout(max(deadline - time.monotonic(), 0.001))
            try:
                message = receive(worker)
            finally:
                worker.settimeout(None)
            if message[0] == "pid":  # a new worker, its init done: the function's time starts
                self._pids[worker] = message[1]
                deadline = time.monotonic() + timeout_s
            elif message[0] == "now":
                send(worker, ports.current().clock())
            elif message[0] == "take":
                fault = faults.registry.take(message[1], message[2])
                send(worker, None if fault is None else fault.mode)
            else:
                return message

    def _take(self, spec: Spec, version: tuple[dict[str, str], list[str]]) -> tuple[socket.socket, bytes]:
        name, key = spec.logical_id, pickle.dumps((sorted(version[0].items()), version[1]))
        with self._lock:
            if self._version.get(name) != key:  # a new version: the old one's warm workers exit
                self._version[name] = key
                for worker in self._idle.pop(name, []):
                    self._pids.pop(worker, None)
                    worker.close()
                    self._started[name] -= 1
            while True:
                idle = self._idle.setdefault(name, [])
                if idle:
                    return idle.pop(), key
                if self._started.get(name, 0) < self.limit:
                    self._started[name] = self._started.get(name, 0) + 1
                    break
                self._lock.wait()
        try:
            return self._spawn(spec, version), key
        except BaseException:
            self._retire(name)
            raise

    def _give_back(self, name: str, worker: socket.socket, key: bytes) -> None:
        with self._lock:
            if self._version.get(name) == key:
                self._idle.setdefault(name, []).append(worker)
            else:  # its version was replaced while it ran
                self._pids.pop(worker, None)
                worker.close()
                self._started[name] -= 1
            self._lock.notify()

    def _discard(self, name: str, worker: socket.socket) -> None:
        """End a worker that timed out or died: its process killed, its slot freed."""
        pid = self._pids.pop(worker, None)
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        worker.close()
        self._retire(name)

    def _retire(self, name: str) -> None:
        with self._lock:
            self._started[name] -= 1
            self._lock.notify()

    def _spawn(self, spec: Spec, version: tuple[dict[str, str], list[str]]) -> socket.socket:
        ours, theirs = socket.socketpair()
        with self._lock:  # one message at a time on the root's socket
            control = self._control or self._start_root()
            message = pickle.dumps((spec, *version))
            socket.send_fds(control, [message], [theirs.fileno()])
        theirs.close()
        return ours

    def _start_root(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # one message, one request
        command = [sys.executable, "-m", "devstack.workers", str(theirs.fileno()), json.dumps(sys.path)]
        self._root = subprocess.Popen(command, pass_fds=[theirs.fileno()])
        theirs.close()
        self._control = ours
        return ours

    def close(self) -> None:
        """Stop every process: each exits when its socket closes."""
        with self._lock:
            self._closed = True
            for workers in self._idle.values():
                for worker in workers:
                    worker.close()
            self._idle.clear()
            if self._control is not None:
                self._control.close()
                self._control = None
            root, self._root = self._root, None
        if root is not None:
            root.wait(timeout=10)


# --------------------------------------------------------------------------- the processes


class _Gateway:
    """The gateway's clock and fault registry (`devstack.faults.registry`), seen from a worker. Any
    thread of the function may ask: one question and its answer at a time on the one socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.active = False  # faults are set
        self._lock = threading.Lock()

    def _ask(self, *question: Any) -> Any:
        with self._lock:
            send(self.sock, question)
            return receive(self.sock)

    def now(self) -> float:
        return float(self._ask("now"))

    def take(self, target: str, operation: str) -> Any:
        if not self.active:
            return None
        mode = self._ask("take", target, operation)
        return None if mode is None else _Taken(mode)


@dataclass
class _Taken:
    mode: str


def _warped(offset: float) -> float:
    return time.time() + offset


def _install(context: dict[str, Any], remote: _Gateway) -> None:
    from devstack import faults
    from partner.chain import ports

    warp = float(context.get("warp", 0.0))
    wall = functools.partial(_warped, warp) if warp else time.time
    ports.install(clock=remote.now if context["clock"] else wall)
    remote.active = context["faults"]
    if remote.active:
        faults.install()
    else:
        faults.uninstall()


def _worker(sock: socket.socket, handler: Any, spec: Spec, failed_init: str | None) -> None:
    from devstack import faults
    from devstack.events import lambda_context
    from partner.core import snapshot
    from partner.features import pinning

    send(sock, ("pid", os.getpid()))  # so that the gateway can end this process at the Timeout
    remote = _Gateway(sock)
    faults.registry = remote  # type: ignore[assignment]  # the gateway's registry, asked over the socket
    pinning.add_hook(functools.partial(faults.take, "pinning"))
    snapshot.run_after_restore()
    while True:
        try:
            _, event, devstack = receive(sock)
        except EOFError:
            return
        if failed_init is not None:
            send(sock, ("error", failed_init))
            continue
        _install(devstack, remote)
        try:
            context = lambda_context(spec.logical_id, memory_limit_in_mb=spec.memory_mb, timeout_seconds=spec.timeout_s)
            result = handler(event, context)
            reply: tuple[str, Any] = ("result", result)
            pickle.dumps(result)
        except BaseException:  # the invocation failed; the gateway shows it
            reply = ("error", traceback.format_exc())
        sys.stdout.flush()
        send(sock, reply)


def _import(spec: Spec) -> Any:
    name = f"fn_{spec.logical_id}"
    loader = importlib.util.spec_from_file_location(name, spec.module_path)
    if loader is None or loader.loader is None:
        raise ImportError(f"cannot load {spec.module_path}")
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    loader.loader.exec_module(module)
    return getattr(module, spec.handler)


def _function_parent(control: socket.socket, spec: Spec, env: dict[str, str], path: list[str]) -> None:
    """Import the function, run the before-snapshot hooks, then fork a worker per request for one."""
    os.environ.clear()
    os.environ.update(env, AWS_LAMBDA_INITIALIZATION_TYPE="snap-start")  # as Lambda sets it (partner/__init__)
    sys.path[:] = path
    from partner.core import snapshot

    handler, failed = None, None
    try:
        handler = _import(spec)
        snapshot.run_before_snapshot()
    except BaseException:  # every invocation reports it, as Lambda's init errors do
        failed = traceback.format_exc()
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(control, 65536, 1)
        except OSError:
            return
        if not fds:
            return
        if os.fork() == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the function's own subprocesses are its own
            with socket.socket(fileno=fds[0]) as sock:
                _worker(sock, handler, spec, failed)
            os._exit(0)
        os.close(fds[0])


def _root(control: socket.socket) -> None:
    """Fork each function's parent on its first worker, then pass it the requests for workers. The
    gateway's environment and path come with each request: when they changed, the function gets a
    new parent (as a new version would) and the old one exits."""
    parents: dict[str, tuple[bytes, socket.socket]] = {}  # per function: its version, its parent
    while True:
        data, fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
        if not data or not fds:
            return
        spec, env, path = pickle.loads(data)
        key = pickle.dumps((spec, sorted(env.items()), path))
        known = parents.get(spec.logical_id)
        if known is None or known[0] != key:
            if known is not None:
                known[1].close()  # the old version's parent exits (its workers when their sockets close)
            parent, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            if os.fork() == 0:
                for sock in (control, parent, *(p for _, p in parents.values())):
                    sock.close()
                _function_parent(theirs, spec, env, path)
                os._exit(0)
            theirs.close()
            parents[spec.logical_id] = known = (key, parent)
        socket.send_fds(known[1], [b"worker"], fds)
        os.close(fds[0])


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped as they exit
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the gateway stops them by closing their sockets
    sys.path[:] = json.loads(argv[1])
    for name in PRELOAD:
        importlib.import_module(name)
    _root(socket.socket(fileno=int(argv[0])))


if __name__ == "__main__":
    main(sys.argv[1:])
