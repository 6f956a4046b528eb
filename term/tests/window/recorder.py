#!/usr/bin/env python3
"""Records the bytes a terminal sends its application (koi's window tests).

    recorder.py OUT READY [SETUP [SHOW]]

Puts the terminal in raw mode, writes SETUP (escape sequences that set
modes: DECCKM, DECKPAM, bracketed paste, mouse reporting) and SHOW (text to
display), then asks for the primary device attributes (DA1). A terminal
answers in order, so the answer means it has applied everything before it;
only then is READY created, so keys typed after it see the modes. Every byte
read after that is appended to OUT as it arrives.
"""

import os
import sys
import tty

out, ready = sys.argv[1], sys.argv[2]
setup = sys.argv[3] if len(sys.argv) > 3 else ""
show = sys.argv[4] if len(sys.argv) > 4 else ""

tty.setraw(0)
os.write(1, (setup + show).encode() + b"\x1b[c")
# The answer is CSI ? … c; nothing is typed before READY, so nothing else
# arrives first.
answer = b""
while not (b"\x1b[?" in answer and answer.endswith(b"c")):
    byte = os.read(0, 1)
    if not byte:
        sys.exit("the terminal closed before answering DA1")
    answer += byte
with open(ready, "w"):
    pass
with open(out, "wb") as f:
    while True:
        chunk = os.read(0, 4096)
        if not chunk:
            break
        f.write(chunk)
        f.flush()
