# SPDX-License-Identifier: Apache-2.0
# The progress bar of `echelon sim` on a terminal of each width: every
# update fits in the width (a line as wide as the terminal would wrap, and
# each update would start a new line), and shows the policy, the share
# done, the simulated time, the jobs done and an ETA where there is room.
# Runs echelon on a pseudo-terminal of the given size; no timing is
# checked. usage: python3 progress.py ECHELON
import os
import pty
import struct
import sys
import termios
import fcntl

echelon = sys.argv[1]
args = [echelon, "sim", "--cluster", "blocks=1,racks=4,hosts=4,gpus=8",
        "--synth", "400", "--compare", "tas,first-fit"]
fail = 0

for width in (30, 45, 61, 62, 80, 132, 300):
    size = struct.pack("HHHH", 24, width, 0, 0)
    pid, fd = pty.fork()
    if pid == 0:
        # the size set before echelon runs: set by the parent, it raced
        # echelon's first look at it on a loaded machine
        fcntl.ioctl(0, termios.TIOCSWINSZ, size)
        os.execv(echelon, args)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    text = out.decode()
    bar = text.split("policies side by side")[0]
    lines = [l for l in bar.replace("\r\n", "\n").split("\n") if "\r" in l]
    updates = [u for l in lines for u in l.split("\r") if u]
    problems = []
    if os.WEXITSTATUS(status) != 0:
        problems.append("exit %d" % os.WEXITSTATUS(status))
    if len(lines) != 2:
        problems.append("%d bar lines, want one per policy" % len(lines))
    if not updates:
        problems.append("no update")
    for u in updates:
        if len(u) > width - 1:
            problems.append("%d columns: %r" % (len(u), u))
            break
    last = updates[-1] if updates else ""
    want = ["first-fit", "100%"]
    if width >= 80:
        want += ["[", "sim ", "400/400 jobs", "ETA "]
    for w in want:
        if w not in last:
            problems.append("no %r in %r" % (w, last))
    if problems:
        fail = 1
        print("FAIL: width %d: %s" % (width, "; ".join(problems)))
    else:
        print("ok: width %d: %s" % (width, last.rstrip()))
sys.exit(fail)
