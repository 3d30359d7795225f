"""Reading a Server-Sent Events stream a few events at a time, with a timeout."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Event:
    """One dispatched event, or a comment line (`comment` set, the rest empty)."""

    event: str = "message"
    id: str | None = None
    data: str = ""
    retry: int | None = None
    comment: str | None = None
    fields: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.data)


_END = object()


class EventReader:
    """Pulls chunks from a streamed body in a thread; `next()` waits at most `timeout` s.

    The same thread closes the stream (a generator cannot be closed by another thread while it
    runs): `close()` asks it to, and it does so after the next chunk (heartbeats keep coming).
    Use it as a context manager.
    """

    def __init__(self, chunks: Iterable[bytes], close: Callable[[], None] | None = None) -> None:
        self._lines: queue.Queue[object] = queue.Queue()
        self._closing = threading.Event()
        self._close = close
        self._thread = threading.Thread(target=self._pump, args=(chunks,), daemon=True)
        self._thread.start()

    def _pump(self, chunks: Iterable[bytes]) -> None:
        pending = b""
        try:
            for chunk in chunks:
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    self._lines.put(line.decode("utf-8").rstrip("\r"))
                if self._closing.is_set():
                    break
        except Exception as error:  # the stream was closed under us
            self._lines.put(error)
        finally:
            if self._close is not None:
                self._close()
            self._lines.put(_END)

    def close(self, timeout: float = 5.0) -> None:
        self._closing.set()
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the event stream did not stop"

    def __enter__(self) -> EventReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _line(self, timeout: float) -> str:
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no line from the event stream within {timeout} s") from None
        if item is _END:
            raise EOFError("the event stream ended")
        if isinstance(item, Exception):
            raise item
        assert isinstance(item, str)
        return item

    def next(self, timeout: float = 3.0) -> Event:
        """The next event or comment."""
        event = Event()
        seen = False
        while True:
            line = self._line(timeout)
            if line == "":
                if seen:
                    return event
                continue
            if line.startswith(":"):
                if not seen:
                    return Event(comment=line[1:].strip())
                continue
            seen = True
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event.fields[name] = value
            if name == "data":
                event.data = value if not event.data else event.data + "\n" + value
            elif name == "event":
                event.event = value
            elif name == "id":
                event.id = value
            elif name == "retry":
                event.retry = int(value)

    def next_event(self, timeout: float = 3.0) -> Event:
        """The next real event, skipping heartbeat comments."""
        while True:
            event = self.next(timeout)
            if event.comment is None:
                return event
