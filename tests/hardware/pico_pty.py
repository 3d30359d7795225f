"""A Pico on a pseudo-terminal: the firmware's main loop in a thread, on HX711 models and the
PIO emulator, talking through the master side of a pty. The Pi side opens a stable link path
(like /dev/serial/by-id/...) that points at the pty's slave while the Pico is plugged in."""

from __future__ import annotations

import os
import sys
import threading
import tty
from pathlib import Path

import pytest

from controller.sim.hx711_model import HX711Model
from tests.hardware.fake_circuitpython import PicoRig, PtyLink
from tests.hardware.firmware_path import sowfirm


class PtyPico:
    def __init__(self, chips: list[HX711Model], link_path: Path, monkeypatch: pytest.MonkeyPatch):
        self.chips = chips
        self.link_path = link_path
        self.monkeypatch = monkeypatch
        self.rig: PicoRig | None = None
        self.link: PtyLink | None = None
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fds: tuple[int, int] | None = None

    @property
    def plugged(self) -> bool:
        return self._thread is not None

    def plug(self) -> None:
        """Connect the cable: a new pty (a new ttyACM), the Pico boots and runs its firmware."""
        master, slave = os.openpty()
        tty.setraw(slave)  # a CDC ACM line does not echo
        self._fds = (master, slave)
        self.link = PtyLink(master)
        self.rig = PicoRig(self.chips, self.link)
        for name, module in self.rig.modules().items():
            self.monkeypatch.setitem(sys.modules, name, module)
        os.symlink(os.ttyname(slave), self.link_path)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, name="pico-firmware", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        try:
            sowfirm.main(self._stop.is_set)
        except BaseException as err:
            self.errors.append(err)

    def unplug(self) -> None:
        """Pull the cable: the Pico loses power, the tty disappears."""
        if self._thread is None or self._fds is None:
            return
        self._stop.set()
        self._thread.join(5)
        self._thread = None
        os.unlink(self.link_path)
        for fd in self._fds:
            os.close(fd)
        self._fds = None
