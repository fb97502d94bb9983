"""Extraction worker processes: every page's text (HTML, PDF, plain text) and what the caller
prepares of it (`content.Prepare`, e.g. the claims' checks of the page), off the event loop and
under each page's time limit.

trafilatura, pypdf and the caller's preparation are CPU-bound and hold the GIL, so in a thread
they compete with the event loop that drives the downloads; and a thread cannot be stopped. A
process can: each page is read in one, under what is left of its source's deadline.

Start-up is most of a worker's cost (its imports: ~0.6 s of CPU, most of it trafilatura's).
So one process is started (`python -m citecheck.fetch.workers`, a plain child: nothing of the
caller's `__main__` is re-run), it imports the modules the caller names (`preload`: what
reading HTML needs, `HTML_IMPORTS`, and what its `Prepare` callables need, which this stage
does not know), and when told how many workers the run wants it forks the others from itself:
a forked worker starts with everything imported, for nothing. A worker imports whatever else
a batch's pages need (`content.READ_IMPORTS`, the `Prepare` callables' modules) before it takes
the batch, so no page's time pays for an import; a pool started at its first page, or a
worker started in a stopped one's place, starts light (~0.1 s) that way. The process that
forks has no threads and no event loop, which is what makes forking safe; its imports are
frozen out of the cycle collector first, so the children share those pages with it instead
of copying them.

How many: one per CPU (up to `MAX_WORKERS`), or per URL when there are fewer
(`worker_processes`): forked, a worker costs little, and the pages a worker is stopped on
(each up to a deadline) are shared out. On 1,000 loopback pages and 2 CPUs, a second worker
took the run from ~5.0 s to ~4.4 s (the event loop leaves half a core free); a third made it
slower. Below `WORKER_MIN_URLS` URLs the workers start at the first page to read (a run of a
few pages that all fail starts none); from there on, with the fetch stage.

`WorkerLauncher.spawn` starts the first process without an event loop, so a caller can
start it early, while it does other work, and decide later (`start(processes)`) how many
workers it needs — or `discard` it (`launch_workers_early` decides from the Markdown a run
reads). `ExtractionWorker.start` does both at once.

Pages go over pipes in batches — whatever arrived while a worker was busy, up to
`_BATCH_BYTES` of bodies — and each worker takes the next batch as soon as it has answered.
It answers each page as soon as it is done, so the pump knows which page a worker is on and
since when: a page past its limit (`extract`'s `limit_s`, counted from when the worker took
it: time queued behind other pages is not the page's) is stopped with its worker (SIGKILL:
nothing else stops a parse inside lxml), `extract` raises `TimeoutError` for it, the pages
after it go back to the queue and a new process takes the old one's place. A worker that dies
on a page fails that page alone and is replaced the same way; one that dies before taking any
page (a broken installation) leaves its share to a thread, as does a run where no process can
be started. A worker's address space is limited to what its imports take and
`WORKER_MEMORY_MB` more (`_limit_memory`): a page that needs more fails alone, as not
extractable, instead of the runner running out of memory; with at most one worker per CPU,
the pages being read take at most that much each.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import os
import pickle
import signal
import struct
import subprocess
import sys
import warnings
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, NoReturn

from citecheck.fetch.content import READ_IMPORTS, ExtractedContent, Prepare, Read, html_content, usable
from citecheck.process import start_process

if TYPE_CHECKING:
    from citecheck.config import Settings
    from citecheck.models import SelectedFile

# What reads the page (or the page already read: one from the cache, to prepare), and what to
# prepare of it (None: nothing).
_Job = tuple["Read | ExtractedContent", "Prepare[Any] | None"]
_Outcome = tuple[ExtractedContent, Any] | BaseException
_Future = asyncio.Future[tuple[ExtractedContent, Any]]
_FRAME = struct.Struct(">Q")
# A pipe's buffer limit on our side.
_READ_LIMIT = 1 << 20
# At most this much of pages' bodies in one batch (one pickled frame, in both processes).
_BATCH_BYTES = 8 << 20
# From this many URLs the workers start with the fetch stage (their start-up, ~0.6 s of CPU,
# overlaps the first downloads), not at the first page to read.
WORKER_MIN_URLS = 50
MAX_WORKERS = 8
WORKER_NICENESS = 10
# A worker's address space beyond its imports (~80 MB). Reading a 5 MB page (the byte cap) of
# 650,000 elements and checking a claim's figures on its 3 MB of text took 575 MB more at its
# peak; 100,000 links 200 MB, 5 MB of plain text 115 MB.
WORKER_MEMORY_MB = 1024
# Below this much Markdown a run cannot cite `WORKER_MIN_URLS` pages (a cited link with its
# sentence takes at least ~40 bytes), so no worker is started ahead of the fetch stage.
EARLY_WORKER_BYTES = WORKER_MIN_URLS * 40
# What `launch_workers_early` counts for a selected line when only some lines are checked.
_BYTES_PER_LINE = 80
WORKER_DIED = "not extractable: the process reading it ended"
# What a pool started ahead of its pages imports first: what reading HTML needs (most pages).
HTML_IMPORTS = READ_IMPORTS[html_content]


def worker_processes(settings: Settings, n_urls: int) -> int:
    """How many `ExtractionWorker` processes a run fetching `n_urls` URLs should have (0: none,
    nothing is fetched)."""
    if not settings.fetch or n_urls < 1:
        return 0
    return min(_most_workers(os.cpu_count() or 1), n_urls)


def launch_workers_early(
    settings: Settings, files: Sequence[SelectedFile], *, preload: Sequence[str] = ()
) -> WorkerLauncher | None:
    """The first worker process, started before the claims of `files` are even extracted
    when the run may cite enough pages to start its workers with the fetch stage: its imports
    (~0.6 s, and the `preload` modules) then overlap this process's own work instead of the
    first downloads. Hand it to `fetch.fetch_all`, which starts the pool the URLs need or
    discards it; discard it yourself if the run never gets there. None when no worker would
    be wanted at the start of the fetch stage."""
    if not settings.fetch or _markdown_bytes(files) < EARLY_WORKER_BYTES:
        return None
    return WorkerLauncher.spawn(_most_workers(os.cpu_count() or 1), preload=(*HTML_IMPORTS, *preload))


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


def out_of_memory(memory_mb: int | None) -> str:
    """Why a page that ran out of memory (a worker's `memory_mb`, or the machine's) is not read."""
    if memory_mb is None:
        return "not extractable: out of memory"
    return f"not extractable: needs more than {memory_mb} MB of memory"


def _mapped() -> int:
    """This process's address space in bytes (Linux)."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class MemoryLimit:
    """A worker's address space limit: `mb` more than the `start` bytes its imports took."""

    mb: int
    start: int

    def spent(self) -> bool:
        """Most of it is in use: an error now is the limit's doing. lxml, out of memory, says
        "unknown error", not MemoryError; a page that failed while holding more than half of
        the budget failed for lack of it."""
        return _mapped() - self.start > self.mb * 1024 * 1024 // 2


def read_page(job: _Job, memory: MemoryLimit | None = None) -> _Outcome:
    """One page read (its text, or why it has none) and what the job's `Prepare` made of it
    (None when there is nothing to prepare or the page is not usable), in a process whose
    address space is limited by `memory` (None: not limited). An exception is returned, not
    raised: one bad page must not fail the others."""
    step, prepare = job
    try:
        result = usable(step if isinstance(step, ExtractedContent) else step())
        if result.error is not None or prepare is None:
            return result, None
        return result, prepare(result.text, result.date)
    except MemoryError:
        pass  # out of the handler first: the frames it holds (and what they allocated) go with it
    except Exception as exc:
        if memory is None or not memory.spent():
            return exc
    return ExtractedContent(error=out_of_memory(memory.mb if memory else None)), None


def read_pages(jobs: list[_Job]) -> list[_Outcome]:
    return [read_page(job) for job in jobs]


def _frame(obj: object) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _FRAME.pack(len(data)) + data


async def _receive(reader: asyncio.StreamReader) -> Any:
    head = await reader.readexactly(_FRAME.size)
    return pickle.loads(await reader.readexactly(_FRAME.unpack(head)[0]))


@dataclass
class _Channel:
    """This process's side of one worker: its pipes, and which process it is."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    read_transport: asyncio.BaseTransport
    proc: subprocess.Popen[bytes] | None = None  # started by this process (not forked by the first)
    pid: int | None = None  # known once the worker has started (its first answer)

    def close(self) -> None:
        self.writer.close()
        self.read_transport.close()

    def kill(self) -> None:
        """Kill the worker (it is on a page past its time)."""
        if self.proc is not None:
            self.proc.kill()
        elif self.pid is not None:
            # A child of the first worker, which reaps it only when the pool ends: the pid is
            # still its own.
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


@dataclass
class _Queued:
    job: _Job
    future: _Future
    limit_s: float | None
    size: int


class WorkerLauncher:
    """The first worker process, started and importing; `start` makes the pool of a run."""

    def __init__(
        self, proc: subprocess.Popen[bytes], spare: list[tuple[int, int]], memory_mb: int = WORKER_MEMORY_MB
    ) -> None:
        self._proc: subprocess.Popen[bytes] | None = proc  # None once handed to a pool
        self._spare = spare  # our ends (write jobs, read answers) of each worker it may fork
        self.memory_mb = memory_mb

    @classmethod
    def spawn(
        cls, max_processes: int, *, preload: Sequence[str] = (), memory_mb: int = WORKER_MEMORY_MB
    ) -> WorkerLauncher | None:
        """Start the first worker, ready to fork up to `max_processes - 1` more, importing the
        `preload` modules (by name) before it forks, each to take at most `memory_mb` more
        memory than its imports; None when no process can be started (then extraction runs in
        a thread)."""
        ours: list[tuple[int, int]] = []
        theirs: list[int] = []
        try:
            for _ in range(max(0, max_processes - 1)):
                jobs_r, jobs_w = os.pipe()
                answers_r, answers_w = os.pipe()
                ours.append((jobs_w, answers_r))
                theirs += [jobs_r, answers_w]
            fds = ",".join(str(fd) for fd in theirs)
            command = [
                sys.executable, "-m", "citecheck.fetch.workers", fds, ",".join(preload), str(memory_mb)
            ]  # fmt: skip
            pipe = subprocess.PIPE
            proc = subprocess.Popen(command, stdin=pipe, stdout=pipe, pass_fds=theirs)
        except (OSError, ValueError):  # no interpreter path (embedded Python), no processes left
            for fd in [fd for pair in ours for fd in pair]:
                os.close(fd)
            return None
        finally:
            for fd in theirs:
                os.close(fd)  # the children's ends: open in the child only
        return cls(proc, ours, memory_mb)

    async def start(self, processes: int) -> ExtractionWorker:
        """The pool of `processes` workers (the first, and as many forked from it as needed)."""
        pool = ExtractionWorker(processes, launcher=self)
        await pool.begin()
        return pool

    async def channels(self, processes: int) -> tuple[subprocess.Popen[bytes], list[_Channel]]:
        """The first worker and the channels of the `processes` workers (it and its forks)."""
        proc, self._proc = self._proc, None
        assert proc is not None, "a launcher starts one pool"
        forks = min(max(0, processes - 1), len(self._spare))
        used, unused = self._spare[:forks], self._spare[forks:]
        self._spare = []
        for fd in [fd for pair in unused for fd in pair]:
            os.close(fd)
        assert proc.stdin is not None and proc.stdout is not None
        channels = [await _channel(proc.stdin, proc.stdout, proc)]
        channels[0].writer.write(_frame(("fork", forks)))
        for jobs_w, answers_r in used:
            jobs, answers = os.fdopen(jobs_w, "wb", buffering=0), os.fdopen(answers_r, "rb", buffering=0)
            channels.append(await _channel(jobs, answers))
        return proc, channels

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


async def _channel(
    write_to: IO[bytes], read_from: IO[bytes], proc: subprocess.Popen[bytes] | None = None
) -> _Channel:
    """Event-loop streams over one worker's two pipes."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_READ_LIMIT)
    read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), read_from)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, write_to)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return _Channel(reader, writer, read_transport, proc)


class ExtractionWorker:
    """A run's worker processes (see the module docstring). Use `await w.extract(...)`, end
    with `await w.aclose()`. The processes start at the first page (or at `begin`)."""

    def __init__(
        self,
        processes: int = 1,
        *,
        preload: Sequence[str] = (),
        memory_mb: int = WORKER_MEMORY_MB,
        launcher: WorkerLauncher | None = None,
        max_batch: int = 64,
    ) -> None:
        self.max_batch = max_batch
        self.processes = max(1, processes)
        self.preload = tuple(preload)  # without a launcher (whose process has its own)
        self.memory_mb = launcher.memory_mb if launcher is not None else memory_mb
        self.replaced = 0  # workers stopped on a page past its time, or dead, and started anew
        self._launcher = launcher
        self._started: asyncio.Task[None] | None = None
        self._procs: list[subprocess.Popen[bytes]] = []  # started by this process: waited for at the end
        self._channels: list[_Channel | None] = []  # None: that share is read in a thread …
        self._stopped: set[int] = set()  # … or, for these, by a new process at its next batch
        self._pumps: list[asyncio.Task[None] | None] = []
        self._queue: deque[_Queued] = deque()

    @classmethod
    async def start(
        cls, *, processes: int = 1, preload: Sequence[str] = (), memory_mb: int = WORKER_MEMORY_MB
    ) -> ExtractionWorker | None:
        """Running workers, or None when no process can be started (then use a thread)."""
        pool = cls(processes, preload=preload, memory_mb=memory_mb)
        await pool.begin()
        if pool.live:
            return pool
        await pool.aclose()
        return None

    async def begin(self) -> None:
        """Start the processes now (the first page does otherwise)."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())
        await asyncio.shield(self._started)

    async def _start(self) -> None:
        launcher, self._launcher = self._launcher, None
        if launcher is None:
            launcher = WorkerLauncher.spawn(self.processes, preload=self.preload, memory_mb=self.memory_mb)
        if launcher is None:
            self._channels = [None]  # no process can be started: a thread reads the pages
        else:
            proc, channels = await launcher.channels(self.processes)
            self._procs.append(proc)
            self._channels = list(channels)
        self._pumps = [None] * len(self._channels)

    @property
    def pid(self) -> int:
        """The first worker's process id."""
        return self._procs[0].pid

    def pids(self) -> list[int]:
        """The process ids of the live workers that have started."""
        return [c.pid for c in self._channels if c is not None and c.pid is not None]

    @property
    def live(self) -> int:
        """How many workers are taking pages (processes, not threads)."""
        return sum(1 for i, c in enumerate(self._channels) if c is not None or i in self._stopped)

    async def aclose(self) -> None:
        if self._started is not None:
            with contextlib.suppress(Exception):
                await self._started
        await asyncio.gather(*(p for p in self._pumps if p is not None), return_exceptions=True)
        # Every batch is answered: closing the pipes ends each worker (an exit without the
        # interpreter's shutdown, ~0.15 s with trafilatura loaded); the first one waits for
        # the workers it forked.
        for i in range(len(self._channels)):
            self._drop(i)
        for proc in self._procs:
            try:
                await asyncio.wait_for(asyncio.to_thread(proc.wait), timeout=5)
            except TimeoutError:
                proc.kill()
                await asyncio.to_thread(proc.wait)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()

    async def extract(
        self,
        read: Read | ExtractedContent,
        *,
        prepare: Prepare[Any] | None = None,
        limit_s: float | None = None,
        size: int = 0,
    ) -> tuple[ExtractedContent, Any]:
        """The page's text (`read` makes it; or the page's content as it is, to prepare), made
        `usable`, and what `prepare` made of it (None without one), from a worker. `limit_s`:
        the seconds it may take from when a worker takes it (None: no limit); past them the
        worker is stopped and this raises `TimeoutError`. `size`: the body's bytes (batches
        are kept small)."""
        if limit_s is not None and limit_s <= 0:
            raise TimeoutError("no time left")  # not worth a worker (stopping one costs a new one)
        await self.begin()
        future: _Future = asyncio.get_running_loop().create_future()
        self._queue.append(_Queued((read, prepare), future, limit_s, size))
        for i, pump in enumerate(self._pumps):
            if pump is None or pump.done():
                self._pumps[i] = asyncio.create_task(self._run(i))
        return await future

    def _drop(self, i: int) -> None:
        """Worker `i` takes no more pages: its pipes are closed (it ends at their end)."""
        channel, self._channels[i] = self._channels[i], None
        if channel is not None:
            channel.close()

    def _batch(self) -> list[_Queued]:
        """An even share of what waits (so the last pages are not all left to one worker), at
        most `max_batch` pages and `_BATCH_BYTES` of bodies (or one page)."""
        share = min(self.max_batch, -(-len(self._queue) // max(1, self.live)))
        batch: list[_Queued] = []
        size = 0
        while self._queue and len(batch) < share:
            if batch and size + self._queue[0].size > _BATCH_BYTES:
                break
            batch.append(self._queue.popleft())
            size += batch[-1].size
        return batch

    async def _run(self, i: int) -> None:
        """Worker `i`'s pump: batches from the queue to the worker until the queue is empty."""
        while self._queue:
            if i in self._stopped:
                await self._respawn(i)
            batch = self._batch()
            if self._channels[i] is None:
                _settle(batch, await asyncio.to_thread(read_pages, [q.job for q in batch]))
                continue
            unread = await self._in_worker(i, batch)
            self._queue.extendleft(reversed(unread))

    async def _in_worker(self, i: int, batch: list[_Queued]) -> list[_Queued]:
        """The batch through worker `i`, each page's answer awaited within the page's limit;
        returns the pages it did not read (it was stopped or died on the one before)."""
        channel = self._channels[i]
        assert channel is not None
        try:
            channel.writer.write(_frame([q.job for q in batch]))
            await channel.writer.drain()
            # It has the batch (and, the first time, has started: its imports are done; and
            # says which process it is): the first page's clock runs from here.
            pid = await _receive(channel.reader)
        except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError):
            # Dead before taking a page, so no page's doing. Once it had started, a new
            # process takes its place; one that never started (a broken installation, no
            # memory) leaves its share to a thread.
            if channel.pid is None:
                self._drop(i)
            else:
                self._stop(i)
            return batch
        channel.pid = pid
        for k, queued in enumerate(batch):
            try:
                async with asyncio.timeout(queued.limit_s):
                    outcome = await _receive(channel.reader)
            except TimeoutError:
                channel.kill()
                _settle([queued], [TimeoutError(f"took longer than {queued.limit_s:g} s")])
                self._stop(i)
                return batch[k + 1 :]
            except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError):
                _settle([queued], [(ExtractedContent(error=WORKER_DIED), None)])
                self._stop(i)
                return batch[k + 1 :]
            _settle([queued], [outcome])
        return []

    def _stop(self, i: int) -> None:
        """Worker `i` (killed or dead) takes no more pages; a new process takes its place when
        there are pages for it (none is started at the end of a run)."""
        self._drop(i)
        self._stopped.add(i)

    async def _respawn(self, i: int) -> None:
        """A new process in stopped worker `i`'s place (importing only what its pages need:
        ~0.1 s of CPU to start, not ~0.6 s); a thread if none can start."""
        self._stopped.discard(i)
        self.replaced += 1
        launcher = WorkerLauncher.spawn(1, memory_mb=self.memory_mb)
        if launcher is None:
            return
        proc, channels = await launcher.channels(1)
        self._procs.append(proc)
        self._channels[i] = channels[0]


def _settle(batch: list[_Queued], outcomes: list[_Outcome]) -> None:
    for queued, outcome in zip(batch, outcomes, strict=True):
        if queued.future.done():
            continue  # its caller gave up on it
        if isinstance(outcome, BaseException):
            queued.future.set_exception(outcome)
        else:
            queued.future.set_result(outcome)


def _answer(answers_out: IO[bytes], outcome: object) -> None:
    try:
        data = _frame(outcome)
    except Exception:  # an exception that does not pickle: send its text
        if not isinstance(outcome, BaseException):
            raise
        data = _frame(RuntimeError(repr(outcome)))
    answers_out.write(data)
    answers_out.flush()


def _serve(jobs_in: IO[bytes], answers_out: IO[bytes], memory: MemoryLimit | None) -> None:
    """Answer each page of each batch as soon as it is read, until the jobs pipe closes (or
    the answers pipe: the pool has ended)."""
    with contextlib.suppress(BrokenPipeError):
        while len(head := jobs_in.read(_FRAME.size)) == _FRAME.size:
            jobs = pickle.loads(jobs_in.read(_FRAME.unpack(head)[0]))
            for read, _ in jobs:
                for module in READ_IMPORTS.get(getattr(read, "func", None), ()):  # type: ignore[arg-type]
                    importlib.import_module(module)
            # Taken (its pages unpickled, what they need imported): the first page's time starts.
            _answer(answers_out, os.getpid())
            for job in jobs:
                _answer(answers_out, read_page(job, memory))


def _forked_worker(jobs_fd: int, answers_fd: int, others: set[int], memory: MemoryLimit | None) -> NoReturn:
    """A forked worker: its own pipes only (not the first worker's, nor its siblings')."""
    for fd in others:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    try:
        _serve(os.fdopen(jobs_fd, "rb"), os.fdopen(answers_fd, "wb"), memory)
    finally:
        os._exit(0)


def _limit_memory(memory_mb: int) -> MemoryLimit | None:
    """This worker's address space: what it has mapped now (its imports) and `memory_mb` more;
    a page that needs more fails. None where the size cannot be read (no /proc) or set: no
    limit."""
    try:
        import resource

        mapped = _mapped()
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = mapped + memory_mb * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        return None
    return MemoryLimit(memory_mb, mapped)


def _worker_main(argv: list[str]) -> int:
    """The first worker: imports (its own and the caller's `preload`), forks the others when
    told how many, serves its own share."""
    if hasattr(os, "nice"):
        # The downloads wait on the caller's event loop, the workers only on CPU: at a lower
        # priority they take what the loop leaves (1,000 loopback pages on 2 CPUs: a run's
        # median went from 3.62 s to 3.43 s). The forked workers inherit it.
        os.nice(WORKER_NICENESS)
    start_process()
    # What the libraries log or warn of a page has no reader here (stderr is the caller's).
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    for module in argv[1].split(",") if len(argv) > 1 else ():
        if module:
            importlib.import_module(module)
    memory = _limit_memory(int(argv[2]) if len(argv) > 2 else WORKER_MEMORY_MB)
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
                _forked_worker(jobs_fd, answers_fd, open_fds - {jobs_fd, answers_fd}, memory)
            children.append(pid)
        os.close(jobs_fd)
        os.close(answers_fd)
        open_fds -= {jobs_fd, answers_fd}
    _serve(stdin, stdout, memory)
    for pid in children:
        os.waitpid(pid, 0)
    stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    # Through the module's own name, so what it pickles is `citecheck.fetch.workers.…`, which the
    # parent can load (not `__main__.…`).
    from citecheck.fetch import workers

    raise SystemExit(workers._worker_main(sys.argv[1:]))
