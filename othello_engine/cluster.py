"""A generic Ray pool: slot actors that keep their state between tasks, every result exactly once.

The tools hand their work here through adapters that live beside what they adapt (module-level,
since Ray pickles them by name): :mod:`othello_engine.analysis.remote` for ``othello-analyze
--cluster``, :mod:`othello_engine.match.remote` for ``othello-match --cluster``; the training
pipeline maps plain functions. A :class:`Pool` has an actor per slot whose state (engine processes,
say) lives between tasks; results come back to the driver. A task whose worker (or node) dies is
given to a new actor, so every item comes back exactly once. Ray is imported only when a function
here needs it; without Ray, :func:`check_available` raises :class:`ClusterError` saying how to
install it.

Addresses: ``local`` starts a Ray instance on this machine with its CPUs; ``auto`` joins the
cluster this machine belongs to (``ray start``); ``ray://HOST:PORT`` joins one through Ray Client.
The environment variable ``OTHELLO_CLUSTER_RUNTIME_ENV`` (JSON) is passed to ``ray.init`` as the
runtime environment (e.g. ``{"pip": ["othello_engine"]}``), so every node gets the package.

Generic use (the training pipeline): :func:`imap_ordered` maps a module-level function over work
items on the cluster and yields the results in input order.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import logging
import os
import socket
import tempfile
import time
from typing import Any, Callable, Iterable, Iterator, Optional, TypeVar

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT = ("--cluster needs Ray, an optional extra: pip install 'othello_engine[cluster]' "
                "(or pip install 'ray[client]>=2.9')")
RUNTIME_ENV_VARIABLE = "OTHELLO_CLUSTER_RUNTIME_ENV"
RETRIES = 3
"""How many times a task whose worker died is given to a new worker before the run fails."""
lost_tasks = 0
"""Tasks given to a new actor because theirs died, in this process so far."""


class ClusterError(RuntimeError):
    """Ray is missing, the cluster cannot be reached, or a task kept losing its workers."""


class _NotYet:
    def __repr__(self) -> str:
        return "NOT_YET"


NOT_YET: Any = _NotYet()
"""What a work-item iterator yields when it has no item yet but is not finished (input still
being read): the driver then collects results and asks again."""


# --- Ray itself ------------------------------------------------------------------------------------

def check_available() -> None:
    """ClusterError with the install command when Ray is not installed (Ray is not imported)."""
    if importlib.util.find_spec("ray") is None:
        raise ClusterError(INSTALL_HINT)


def _ray() -> Any:
    check_available()
    try:
        import ray
    except ImportError as exc:  # installed but broken (a missing dependency, say)
        raise ClusterError(f"Ray is installed but cannot be imported: {exc}; {INSTALL_HINT}") from None
    return ray


def connect(address: str, num_cpus: Optional[int] = None) -> bool:
    """Join the cluster at address (``local``, ``auto``, ``ray://HOST:PORT`` or ``HOST:PORT``)
    unless this process is already connected. True when this call connected (the caller may
    :func:`shutdown`); ClusterError when Ray is missing or the cluster cannot be reached.
    ``num_cpus``: CPUs of a ``local`` instance (default: all of this machine)."""
    ray = _ray()
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
    env = os.environ.get(RUNTIME_ENV_VARIABLE)
    if env:
        try:
            kwargs["runtime_env"] = json.loads(env)
        except ValueError as exc:
            raise ClusterError(f"{RUNTIME_ENV_VARIABLE} is not JSON: {exc}") from None
    if address == "local":
        kwargs.update(address="local", num_cpus=num_cpus or os.cpu_count() or 1,
                      include_dashboard=False)
    elif address == "auto" or address.startswith("ray://") or ":" in address:
        kwargs["address"] = address
        if address != "auto":  # Ray itself keeps retrying a dead address for minutes
            _probe(address.removeprefix("ray://"))
    else:
        raise ClusterError(f"bad cluster address {address!r}: expected local, auto, "
                           "ray://HOST:PORT or HOST:PORT")
    # Ray puts the driver's working directory on every worker's sys.path as it connects: join
    # from a private empty one, so that a folder named like the package where the user runs
    # the command is never imported by the workers.
    # (It stays: a local instance's processes keep it as their working directory.)
    here = os.getcwd()
    os.chdir(_private_directory())
    try:
        ray.init(**kwargs)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
        raise ClusterError(f"cannot join the Ray cluster at {address!r}: {exc}") from None
    finally:
        os.chdir(here)
    return True


def _private_directory() -> str:
    """An empty directory only this user can write to, made once in the temporary folder."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = os.path.join(tempfile.gettempdir(), f"othello-engine-cluster-{uid}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or info.st_uid != uid or os.listdir(path):
        path = tempfile.mkdtemp(prefix="othello-engine-cluster-")
    return path


def _probe(host_port: str, timeout: float = 5.0) -> None:
    """ClusterError unless something accepts a TCP connection at HOST:PORT."""
    host, _, port = host_port.rpartition(":")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise ClusterError(f"cannot join the Ray cluster at {host_port!r}: "
                           f"{getattr(exc, 'strerror', None) or exc}") from None


def shutdown() -> None:
    """Leave the cluster (and stop a ``local`` instance this process started)."""
    if importlib.util.find_spec("ray") is not None:
        import ray
        if ray.is_initialized():
            ray.shutdown()


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(_ray().cluster_resources().get("CPU", 1)))


def _cause(exc: Any) -> BaseException:
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, Exception) else ClusterError(str(exc))


# --- engine slots ------------------------------------------------------------------------------------

class _Slot:
    """The body of one slot actor: its state (engine processes, say) lives as long as the actor,
    so consecutive tasks reuse it. Without a setup, tasks are plain functions of one item."""

    def __init__(self, setup: Optional[Callable[..., Any]], setup_args: tuple[Any, ...]) -> None:
        self.plain = setup is None
        self.state = None if setup is None else setup(*setup_args)

    def call(self, func: Callable[..., Any], item: Any) -> Any:
        return func(item) if self.plain else func(self.state, item)

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        closer = getattr(self.state, "close", None)
        if closer is not None:
            closer()


class Pool:
    """``slots`` actors, each with the state ``setup(*setup_args)`` (None: no state), one CPU
    each. :meth:`run` gives them work; :meth:`close` ends them (closing their state first)."""

    def __init__(self, slots: int, setup: Optional[Callable[..., Any]] = None,
                 setup_args: tuple[Any, ...] = (), retries: int = RETRIES) -> None:
        self.ray = _ray()
        self.setup, self.setup_args, self.retries = setup, setup_args, retries
        self.actor_class = self.ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_Slot)
        self.actors = [self._new_actor() for _ in range(max(1, slots))]
        self.replaced = 0
        self.abandoned = False  # tasks were left running: close without waiting for them

    def _new_actor(self) -> Any:
        return self.actor_class.remote(self.setup, self.setup_args)

    def call_on(self, slot: int, func: Callable[..., R], item: Any) -> R:
        """func(state, item) on one slot, waited for; an exception func raises is raised here
        as itself (a dead actor: ClusterError)."""
        ray = self.ray
        try:
            return ray.get(self.actors[slot].call.remote(func, item))  # type: ignore[no-any-return]
        except ray.exceptions.RayTaskError as exc:
            raise _cause(exc) from None
        except ray.exceptions.RayActorError as exc:
            raise ClusterError(f"a worker died while starting: {exc}") from None

    def pids(self) -> list[int]:
        """The process ids of the slot actors (for tests and diagnostics)."""
        return list(self.ray.get([a.pid.remote() for a in self.actors]))

    def run(self, func: Callable[..., R], items: Iterable[Any], *, depth: int = 1,
            halt: Optional[Callable[[], bool]] = None,
            admit: Optional[Callable[[int], bool]] = None) -> Iterator[tuple[int, R]]:
        """Give the items to the slots, at most ``depth`` queued per slot, and yield (index of
        the item, result) as results arrive. An item whose actor died goes to a new actor (at
        most ``retries`` times, then ClusterError); an exception func raises is raised here.
        ``items`` may yield NOT_YET (no item for now). ``halt()`` true: stop at once, dropping
        the tasks in flight. ``admit(index)`` false: do not take item ``index`` yet."""
        global lost_tasks
        ray = self.ray
        lost = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                ray.exceptions.ObjectLostError)
        source = iter(items)
        retry: collections.deque[tuple[int, Any, int]] = collections.deque()
        pending: dict[Any, tuple[int, int, int, Any, int]] = {}  # ref -> slot, generation, index, item, tries
        n = len(self.actors)
        busy, generation = [0] * n, [0] * n
        counter, exhausted = 0, False
        self.abandoned = True  # until the loop ends with nothing in flight
        while True:
            if halt is not None and halt():
                return
            for s in range(n):
                while busy[s] < depth:
                    if retry:
                        index, item, tries = retry.popleft()
                    elif exhausted or (admit is not None and not admit(counter)):
                        break
                    else:
                        try:
                            item = next(source)
                        except StopIteration:
                            exhausted = True
                            break
                        if item is NOT_YET:
                            break
                        index, tries, counter = counter, 0, counter + 1
                    ref = self.actors[s].call.remote(func, item)
                    pending[ref] = (s, generation[s], index, item, tries)
                    busy[s] += 1
            if not pending:
                if exhausted and not retry:
                    self.abandoned = False
                    return
                time.sleep(0.005)
                continue
            refs = list(pending)
            ready, rest = ray.wait(refs, num_returns=1, timeout=0.2)
            if ready and rest:  # collect whatever else is done too, without waiting
                more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
                ready += more
            for ref in ready:
                s, gen, index, item, tries = pending.pop(ref)
                if gen == generation[s]:
                    busy[s] -= 1
                try:
                    value = ray.get(ref)
                except lost as exc:
                    lost_tasks += 1
                    if tries + 1 > self.retries:
                        raise ClusterError(f"work item {index} lost its worker {tries + 1} times; "
                                           f"last: {type(exc).__name__}") from None
                    if gen == generation[s]:  # the first loss seen from this actor: replace it
                        self._replace(s)
                        generation[s] += 1
                        busy[s] = 0
                    retry.append((index, item, tries + 1))
                    continue
                except ray.exceptions.RayTaskError as exc:
                    raise _cause(exc) from None
                yield index, value

    def _replace(self, s: int) -> None:
        try:
            self.ray.kill(self.actors[s], no_restart=True)
        except Exception:  # already gone
            pass
        self.actors[s] = self._new_actor()
        self.replaced += 1

    def close(self) -> None:
        """Close every slot's state (its engines), then end the actors. After a halt or an error,
        the actors are ended at once (their engines see their input close and exit)."""
        if not self.abandoned:
            try:
                self.ray.wait([a.close.remote() for a in self.actors], num_returns=len(self.actors),
                              timeout=5.0)
            except Exception:  # a dead actor has nothing to close
                pass
        for a in self.actors:
            try:
                self.ray.kill(a, no_restart=True)
            except Exception:
                pass


def imap_unordered(func: Callable[..., R], items: Iterable[Any], address: Optional[str] = None, *,
                   slots: Optional[int] = None, setup: Optional[Callable[..., Any]] = None,
                   setup_args: tuple[Any, ...] = (), depth: int = 2,
                   halt: Optional[Callable[[], bool]] = None) -> Iterator[tuple[int, R]]:
    """(index, func(item)) for every item, as they finish on the cluster (see :meth:`Pool.run`).
    func must be picklable (a module-level function); with ``setup``, each slot builds its state
    once and func is called as ``func(state, item)``. address: connect first (None: already
    connected). slots: actors (default: one per CPU of the cluster)."""
    if address is not None:
        connect(address)
    pool = Pool(slots or cluster_cpus(), setup, setup_args)
    try:
        yield from pool.run(func, items, depth=depth, halt=halt)
    finally:
        pool.close()


def imap_ordered(func: Callable[..., R], items: Iterable[Any], address: Optional[str] = None, *,
                 slots: Optional[int] = None, setup: Optional[Callable[..., Any]] = None,
                 setup_args: tuple[Any, ...] = (), depth: int = 2,
                 halt: Optional[Callable[[], bool]] = None, ahead: int = 64) -> Iterator[R]:
    """func(item) for every item, computed on the cluster and yielded in input order (see
    :func:`imap_unordered`); at most ``ahead`` items per slot are taken past the first one not
    yet yielded, so a slow item does not make the buffer grow without bound.

    Training example: ``for line in imap_ordered(generate_game, jobs, "local"): out.write(line)``
    where ``generate_game((number, seed, settings)) -> str`` is a module-level function."""
    if address is not None:
        connect(address)
    n = slots or cluster_cpus()
    pool = Pool(n, setup, setup_args)
    done: dict[int, R] = {}
    head = 0
    try:
        for index, value in pool.run(func, items, depth=depth, halt=halt,
                                     admit=lambda i: i < head + ahead * n):
            done[index] = value
            while head in done:
                yield done.pop(head)
                head += 1
    finally:
        pool.close()
