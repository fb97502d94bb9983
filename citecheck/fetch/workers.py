"""Extraction worker processes: HTML extraction, and what the caller prepares of each page
(`content.Prepare`, e.g. the claims' checks of the page), off the event loop.

trafilatura and the caller's preparation are CPU-bound and hold the GIL, so in a thread they
compete with the event loop that drives the downloads. Runs of many pages hand them to
worker processes on the other cores.

Start-up is most of a worker's cost (its imports: ~0.6 s of CPU). So one process is
started (`python -m citecheck.fetch.workers`, a plain child: nothing of the caller's `__main__`
is re-run), it imports what extraction needs and the modules the caller names (`preload`:
what its `Prepare` callables need, which this stage does not know), and when told how many
workers the run wants it forks the others from itself: a forked worker starts with
everything imported, for nothing. The process that forks has no threads and no event loop,
which is what makes forking safe; its imports are frozen out of the cycle collector first,
so the children share those pages with it instead of copying them.

How many: none below `WORKER_MIN_URLS` URLs (measured on 30–200 loopback pages, fewer do
not repay a worker's start-up) or on one CPU, then one per `WORKER_URLS` URLs, up to the
number of CPUs (`worker_processes`). On 1,000 loopback pages and 2 CPUs, a second worker
took the run from ~5.0 s to ~4.4 s (the event loop leaves half a core free); a third made
it slower.

`WorkerLauncher.spawn` starts the first process without an event loop, so a caller can
start it early, while it does other work, and decide later (`start(processes)`) how many
workers it needs — or `discard` it (`launch_workers_early` decides from the Markdown a run
reads). `ExtractionWorker.start` does both at once.

Pages go over pipes in batches — whatever arrived while a worker was busy — and each worker
takes the next batch as soon as it has answered. When the workers fall behind, the caller
says it is idle (`idle()`: e.g. all downloads done) and a CPU has no worker, this process
extracts pages from the back of the queue too, in one thread. A worker that dies is replaced
by a thread for its share from then on.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
import pickle
import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

from citecheck.fetch.content import ExtractedContent, Prepare, decode_text, extract_html, usable
from citecheck.process import start_process

if TYPE_CHECKING:
    from citecheck.config import Settings
    from citecheck.models import SelectedFile

# body, content type, URL, what to prepare of the page (None: nothing)
_Job = tuple[bytes, str | None, str | None, "Prepare[Any] | None"]
_Outcome = tuple[ExtractedContent, Any] | BaseException
_Future = asyncio.Future[tuple[ExtractedContent, Any]]
_FRAME = struct.Struct(">Q")
# How often a waiting pump asks whether this process is idle enough to help the workers.
_IDLE_POLL_S = 0.02
# A pipe's buffer limit on our side: a batch of answers is read in one go.
_READ_LIMIT = 1 << 20
WORKER_MIN_URLS = 50
# A worker's start-up (~0.6 s of CPU) against ~2.5 ms of extraction and checks per page.
WORKER_URLS = 400
MAX_WORKERS = 8
WORKER_NICENESS = 10
# Below this much Markdown a run cannot cite `WORKER_MIN_URLS` pages (a cited link with its
# sentence takes at least ~40 bytes), so no worker is started ahead of the fetch stage.
EARLY_WORKER_BYTES = WORKER_MIN_URLS * 40
# What `launch_workers_early` counts for a selected line when only some lines are checked.
_BYTES_PER_LINE = 80


def worker_processes(settings: Settings, n_urls: int) -> int:
    """How many `ExtractionWorker` processes a run fetching `n_urls` URLs should start (0: none,
    HTML is extracted in a thread)."""
    cpus = os.cpu_count() or 1
    if not settings.fetch or n_urls < WORKER_MIN_URLS or cpus < 2:
        return 0
    return max(1, min(_most_workers(cpus), n_urls // WORKER_URLS))


def launch_workers_early(
    settings: Settings, files: Sequence[SelectedFile], *, preload: Sequence[str] = ()
) -> WorkerLauncher | None:
    """The first worker process, started before the claims of `files` are even extracted
    when the run may cite enough pages to want workers: its imports (~0.6 s, and the
    `preload` modules) then overlap this process's own work instead of the first downloads.
    Hand it to `fetch.fetch_all`, which starts the pool the URLs need or discards it; discard
    it yourself if the run never gets there. None when no worker would be wanted."""
    cpus = os.cpu_count() or 1
    if not settings.fetch or cpus < 2 or _markdown_bytes(files) < EARLY_WORKER_BYTES:
        return None
    return WorkerLauncher.spawn(_most_workers(cpus), preload=preload)


def _most_workers(cpus: int) -> int:
    # More than one needs fork(2), which Windows lacks (and the pipes a fork inherits).
    return min(cpus, MAX_WORKERS) if hasattr(os, "fork") else 1


def _markdown_bytes(files: Sequence[SelectedFile]) -> int:
    """About how much Markdown the run reads for claims: whole files by size, checked line
    ranges at `_BYTES_PER_LINE` a line (no file is read here)."""
    total = 0
    for f in files:
        if f.line_ranges is not None:
            total += _BYTES_PER_LINE * sum(end - start + 1 for start, end in f.line_ranges)
            continue
        try:
            total += os.stat(f.path).st_size
        except OSError:
            continue  # extraction reports the file
    return total


def _prepared(result: ExtractedContent, prepare: Prepare[Any] | None) -> tuple[ExtractedContent, Any]:
    """An extracted page and what `prepare` made of it (None when there is nothing to prepare
    or the page is not usable)."""
    if result.error is not None or prepare is None:
        return result, None
    return result, prepare(result.text, result.date)


def html_batch(jobs: list[_Job]) -> list[_Outcome]:
    """Each page extracted (and prepared if asked); an exception is returned, not raised (one
    bad page must not fail the others).

    In two passes, every page's text and then every page's preparation (the checks stage's:
    its claims' checks): taking each page through both in turn cost ~10 % more CPU (batches
    of 24 bench pages, median of 12 alternations; trafilatura's code and the checks' evict
    each other from the CPU's caches)."""
    texts: list[ExtractedContent | Exception] = []
    for body, content_type, url, _ in jobs:
        try:
            texts.append(usable(extract_html(decode_text(body, content_type, html=True), url)))
        except Exception as exc:
            texts.append(exc)
    out: list[_Outcome] = []
    for (_, _, _, prepare), text in zip(jobs, texts, strict=True):
        if isinstance(text, Exception):
            out.append(text)
            continue
        try:
            out.append(_prepared(text, prepare))
        except Exception as exc:
            out.append(exc)
    return out


def _frame(obj: object) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _FRAME.pack(len(data)) + data


class WorkerLauncher:
    """The first worker process, started and importing; `start` makes the pool of a run."""

    def __init__(self, proc: subprocess.Popen[bytes], spare: list[tuple[int, int]]) -> None:
        self._proc: subprocess.Popen[bytes] | None = proc  # None once handed to a pool
        self._spare = spare  # our ends (write jobs, read answers) of each worker it may fork

    @classmethod
    def spawn(cls, max_processes: int, *, preload: Sequence[str] = ()) -> WorkerLauncher | None:
        """Start the first worker, ready to fork up to `max_processes - 1` more, importing the
        `preload` modules (by name) before it forks; None when no process can be started (then
        extraction runs in a thread)."""
        ours: list[tuple[int, int]] = []
        theirs: list[int] = []
        try:
            for _ in range(max(0, max_processes - 1)):
                jobs_r, jobs_w = os.pipe()
                answers_r, answers_w = os.pipe()
                ours.append((jobs_w, answers_r))
                theirs += [jobs_r, answers_w]
            fds = ",".join(str(fd) for fd in theirs)
            command = [sys.executable, "-m", "citecheck.fetch.workers", fds, ",".join(preload)]
            pipe = subprocess.PIPE
            proc = subprocess.Popen(command, stdin=pipe, stdout=pipe, pass_fds=theirs)
        except (OSError, ValueError):  # no interpreter path (embedded Python), no processes left
            for fd in [fd for pair in ours for fd in pair]:
                os.close(fd)
            return None
        finally:
            for fd in theirs:
                os.close(fd)  # the children's ends: open in the child only
        return cls(proc, ours)

    async def start(self, processes: int) -> ExtractionWorker:
        """The pool of `processes` workers (the first, and as many forked from it as needed)."""
        proc, self._proc = self._proc, None
        assert proc is not None, "a launcher starts one pool"
        forks = min(max(0, processes - 1), len(self._spare))
        used, unused = self._spare[:forks], self._spare[forks:]
        self._spare = []
        for fd in [fd for pair in unused for fd in pair]:
            os.close(fd)
        assert proc.stdin is not None and proc.stdout is not None
        channels = [await _channel(proc.stdin, proc.stdout)]
        channels[0][1].write(_frame(("fork", forks)))
        for jobs_w, answers_r in used:
            jobs, answers = os.fdopen(jobs_w, "wb", buffering=0), os.fdopen(answers_r, "rb", buffering=0)
            channels.append(await _channel(jobs, answers))
        return ExtractionWorker(proc, channels)

    def discard(self) -> None:
        """Not needed after all: the process ends (it has forked nothing). Nothing to do once
        `start` has handed the process to a pool."""
        for fd in [fd for pair in self._spare for fd in pair]:
            os.close(fd)
        self._spare = []
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


_Channel = tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.BaseTransport]


async def _channel(write_to: IO[bytes], read_from: IO[bytes]) -> _Channel:
    """Event-loop streams over one worker's two pipes (and the reading end, to close)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_READ_LIMIT)
    read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), read_from)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, write_to)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop), read_transport


class ExtractionWorker:
    """A run's worker processes (see the module docstring). Use `await w.extract(...)`, end
    with `await w.aclose()`."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        channels: list[_Channel],
        *,
        max_batch: int = 64,
    ) -> None:
        self.max_batch = max_batch
        self._proc = proc  # the first worker, which forked the others
        self._channels: list[_Channel | None] = list(channels)
        self._pumps: list[asyncio.Task[None] | None] = [None] * len(channels)
        self._queue: list[tuple[_Job, _Future]] = []
        self._idle: Callable[[], bool] | None = None
        self._helping = False  # this process is extracting a page in its thread

    @classmethod
    async def start(cls, *, processes: int = 1, preload: Sequence[str] = ()) -> ExtractionWorker | None:
        """Running workers, or None when no process can be started (then use a thread)."""
        launcher = WorkerLauncher.spawn(processes, preload=preload)
        return None if launcher is None else await launcher.start(processes)

    @property
    def pid(self) -> int:
        """The first worker's process id."""
        return self._proc.pid

    @property
    def live(self) -> int:
        """How many workers are still taking pages."""
        return sum(1 for c in self._channels if c is not None)

    async def aclose(self) -> None:
        await asyncio.gather(*(p for p in self._pumps if p is not None), return_exceptions=True)
        # Every batch is answered: closing the pipes ends each worker (an exit without the
        # interpreter's shutdown, ~0.15 s with trafilatura loaded); the first one waits for
        # the workers it forked.
        for i in range(len(self._channels)):
            self._drop(i)
        try:
            await asyncio.wait_for(asyncio.to_thread(self._proc.wait), timeout=5)
        except TimeoutError:
            self._proc.kill()
            await asyncio.to_thread(self._proc.wait)

    async def extract(
        self,
        body: bytes,
        content_type: str | None,
        url: str | None,
        *,
        idle: Callable[[], bool] | None = None,
        prepare: Prepare[Any] | None = None,
    ) -> tuple[ExtractedContent, Any]:
        """The page's text, and what `prepare` made of it (None without one), from a worker."""
        if idle is not None:
            self._idle = idle
        future: _Future = asyncio.get_running_loop().create_future()
        self._queue.append(((body, content_type, url, prepare), future))
        for i, pump in enumerate(self._pumps):
            if pump is None or pump.done():
                self._pumps[i] = asyncio.create_task(self._run(i))
        return await future

    async def _in_worker(self, i: int, jobs: list[_Job]) -> list[_Outcome] | None:
        channel = self._channels[i]
        if channel is None:
            return None
        reader, writer, _ = channel
        try:
            writer.write(_frame(jobs))
            await writer.drain()
            head = await reader.readexactly(_FRAME.size)
            outcomes: list[_Outcome] = pickle.loads(await reader.readexactly(_FRAME.unpack(head)[0]))
        except (OSError, asyncio.IncompleteReadError, pickle.UnpicklingError):
            return None
        return outcomes if len(outcomes) == len(jobs) else None

    def _cpu_free(self) -> bool:
        """A CPU has no worker: only then may this process extract pages itself (with a worker
        on every CPU, helping only takes time from them — and costs trafilatura's import)."""
        return self.live < (os.cpu_count() or 1)

    def _may_help(self) -> bool:
        """Whether this process should extract a page itself now: a CPU is free and the
        caller is idle."""
        return not self._helping and self._idle is not None and self._cpu_free() and self._idle()

    def _drop(self, i: int) -> None:
        """Worker `i` takes no more pages: its pipes are closed (it ends at their end)."""
        channel, self._channels[i] = self._channels[i], None
        if channel is not None:
            channel[1].close()
            channel[2].close()

    async def _run(self, i: int) -> None:
        """Worker `i`'s pump: batches from the queue to the worker until the queue is empty."""
        while self._queue:
            # An even share of what waits, so the last pages are not all left to one worker.
            size = min(self.max_batch, -(-len(self._queue) // max(1, self.live)))
            batch, self._queue = self._queue[:size], self._queue[size:]
            jobs = [job for job, _ in batch]
            reply = asyncio.ensure_future(self._in_worker(i, jobs))
            while not reply.done():
                if self._queue and self._may_help():
                    job, future = self._queue.pop()
                    self._helping = True
                    try:
                        self._settle([future], await asyncio.to_thread(html_batch, [job]))
                    finally:
                        self._helping = False
                else:
                    # Polled only while helping could start: otherwise the answer is all to wait for.
                    await asyncio.wait({reply}, timeout=_IDLE_POLL_S if self._cpu_free() else None)
            outcomes = reply.result()
            if outcomes is None:
                self._drop(i)  # a dead or confused worker: a thread from here on
                outcomes = await asyncio.to_thread(html_batch, jobs)
            self._settle([future for _, future in batch], outcomes)

    @staticmethod
    def _settle(futures: list[_Future], outcomes: list[_Outcome]) -> None:
        for future, outcome in zip(futures, outcomes, strict=True):
            if future.done():
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)


def _serve(jobs_in: IO[bytes], answers_out: IO[bytes]) -> None:
    """Answer batches of pages until the jobs pipe closes."""
    while len(head := jobs_in.read(_FRAME.size)) == _FRAME.size:
        jobs = pickle.loads(jobs_in.read(_FRAME.unpack(head)[0]))
        outcomes = html_batch(jobs)
        try:
            data = _frame(outcomes)
        except Exception:  # an exception that does not pickle: send its text
            data = _frame(
                [o if not isinstance(o, BaseException) else RuntimeError(repr(o)) for o in outcomes]
            )
        answers_out.write(data)
        answers_out.flush()


def _forked_worker(jobs_fd: int, answers_fd: int, others: set[int]) -> NoReturn:
    """A forked worker: its own pipes only (not the first worker's, nor its siblings')."""
    for fd in others:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    try:
        _serve(os.fdopen(jobs_fd, "rb"), os.fdopen(answers_fd, "wb"))
    finally:
        os._exit(0)


def _worker_main(argv: list[str]) -> int:
    """The first worker: imports (its own and the caller's `preload`), forks the others when
    told how many, serves its own share."""
    if hasattr(os, "nice"):
        # The downloads wait on the caller's event loop, the workers only on CPU: at a lower
        # priority they take what the loop leaves (1,000 loopback pages on 2 CPUs: a run's
        # median went from 3.62 s to 3.43 s). The forked workers inherit it.
        os.nice(WORKER_NICENESS)
    start_process()
    # Imported before the first batch arrives: the imports overlap the caller's other work.
    import htmldate  # noqa: F401
    import trafilatura  # noqa: F401

    for module in argv[1].split(",") if len(argv) > 1 else ():
        if module:
            importlib.import_module(module)
    fds = [int(fd) for fd in argv[0].split(",") if fd] if argv else []
    pairs = list(zip(fds[0::2], fds[1::2], strict=True))
    # The imports stay for the processes' life: the cycle collector need not scan them (and,
    # frozen before the fork, it never writes to the pages the children share).
    gc.freeze()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    head = stdin.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return 0  # discarded before any work
    command, forks = pickle.loads(stdin.read(_FRAME.unpack(head)[0]))
    assert command == "fork"
    children: list[int] = []
    open_fds = set(fds)
    for n, (jobs_fd, answers_fd) in enumerate(pairs):
        if n < forks:
            pid = os.fork()
            if pid == 0:
                _forked_worker(jobs_fd, answers_fd, open_fds - {jobs_fd, answers_fd})
            children.append(pid)
        os.close(jobs_fd)
        os.close(answers_fd)
        open_fds -= {jobs_fd, answers_fd}
    _serve(stdin, stdout)
    for pid in children:
        os.waitpid(pid, 0)
    stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    # Through the module's own name, so what it pickles is `citecheck.fetch.workers.…`, which the
    # parent can load (not `__main__.…`).
    from citecheck.fetch import workers

    raise SystemExit(workers._worker_main(sys.argv[1:]))
