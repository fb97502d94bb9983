"""Reading what a subprocess wrote to a pseudo-terminal (for the tests that run citecheck on a
real terminal: colours, the progress bar)."""

from __future__ import annotations

import os


def read_until_closed(main_fd: int) -> bytes:
    """Everything written to the terminal whose main side is `main_fd`, read until every writer
    has closed it; `main_fd` is closed then."""
    chunks: list[bytes] = []
    try:
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # EIO: every writer of the terminal has closed it
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main_fd)
    return b"".join(chunks)
