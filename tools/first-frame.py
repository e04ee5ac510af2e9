#!/usr/bin/env python3
"""Whole-process startup of the explorer: the time from exec to the first
frame on an 80x24 pseudo-terminal, median of 11 runs.

    go build -o ratelab . && python3 tools/first-frame.py ./ratelab [SCENARIO]
"""
import os, pty, sys, time, select, statistics, struct, fcntl, termios
def once(cmd):
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(cmd[0], cmd)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    buf = b""
    while True:
        r, _, _ = select.select([fd], [], [], 5)
        if not r: raise SystemExit("no frame")
        try: buf += os.read(fd, 65536)
        except OSError: break
        if b"requests" in buf:
            t = time.perf_counter() - t0
            break
    os.write(fd, b"q")
    os.waitpid(pid, 0)
    return t
ts = [once(sys.argv[1:]) for _ in range(11)]
print("median %.1f ms, min %.1f, max %.1f" % (statistics.median(ts)*1e3, min(ts)*1e3, max(ts)*1e3))
