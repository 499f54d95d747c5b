#!/usr/bin/env python3
"""Swap pairs of paths atomically, over and over, until SIGTERM or SIGINT: a local process that
exchanges a directory inside a workspace with a symlink to outside while the server works in it.

    rename-exchange.py A1 B1 [A2 B2 ...]

SWAP_HOLD_MS=<ms> holds each state that long between exchanges (an attacker who swaps once and waits, as
the Inbox's symlinked-parent race does), instead of swapping as fast as possible.

renameat2(RENAME_EXCHANGE) through ctypes (coreutils 9.1 has no `mv --exchange`). Prints `ready` once the
first exchange of every pair worked, and `swaps N` on exit. Exits 3 with `unsupported: <why>` when the C
library or the file system cannot exchange.
"""
import ctypes
import os
import signal
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2

stop = False


def on_signal(_signum, _frame):
    global stop
    stop = True


def main():
    paths = [os.fsencode(p) for p in sys.argv[1:]]
    if len(paths) < 2 or len(paths) % 2:
        print("usage: rename-exchange.py A1 B1 [A2 B2 ...]", file=sys.stderr)
        return 2
    pairs = list(zip(paths[0::2], paths[1::2]))
    hold = float(os.environ.get("SWAP_HOLD_MS", "0")) / 1000
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        renameat2 = libc.renameat2
    except AttributeError:
        print("unsupported: the C library has no renameat2", flush=True)
        return 3
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]

    def exchange(a, b):
        if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            return ctypes.get_errno()
        return 0

    for a, b in pairs:
        err = exchange(a, b)
        if err:
            print(f"unsupported: renameat2 RENAME_EXCHANGE failed: {os.strerror(err)}", flush=True)
            return 3
    swaps = len(pairs)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print("ready", flush=True)
    while not stop:
        for a, b in pairs:
            if exchange(a, b) == 0:
                swaps += 1
        if hold:
            time.sleep(hold)
        else:
            # One core for the server on a two-core machine: swapping as fast as possible, but yielding.
            os.sched_yield()
    print(f"swaps {swaps}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
