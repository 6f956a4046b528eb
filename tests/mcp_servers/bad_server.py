#!/usr/bin/env python3
"""A deliberately misbehaving MCP server for koi's tests (stdio).

Modes (first argument):
  garbage   writes lines that are not JSON-RPC to stdout around every answer
  silent    reads everything and never answers (initialize hangs); each
            start appends a line to ./starts (the test counts restarts)
  huge      `big` returns a 10 MB text result
  hang      `stall` never answers; `ok` answers
  crash     exits as soon as initialize is answered
  changing  `grow` adds a tool and sends notifications/tools/list_changed
  paged     tools/list in pages of one tool each
  slow      answers initialize only once ./release exists (the test
            decides when the server is ready), then behaves
"""
import json
import os
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "garbage"
tools = [
    {"name": "ok", "description": "answers ok", "inputSchema": {"type": "object"}},
    {"name": "big", "description": "10 MB of text", "inputSchema": {"type": "object"}},
    {"name": "stall", "description": "never answers", "inputSchema": {"type": "object"}},
    {"name": "grow", "description": "adds a tool", "inputSchema": {"type": "object"}},
]


def send(msg):
    if mode == "garbage":
        sys.stdout.write("starting up... not json\n{broken json\n")
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def answer(mid, result):
    send({"jsonrpc": "2.0", "id": mid, "result": result})


if mode == "silent":
    with open("starts", "a") as f:
        f.write("started\n")

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    method, mid = msg.get("method"), msg.get("id")
    if mode == "silent" or mid is None:
        continue
    if method == "initialize":
        if mode == "slow":
            while not os.path.exists("release"):
                time.sleep(0.02)
        answer(mid, {"protocolVersion": msg["params"]["protocolVersion"],
                     "capabilities": {"tools": {"listChanged": True}},
                     "serverInfo": {"name": "bad-" + mode, "version": "1"}})
        if mode == "crash":
            sys.exit(3)
    elif method == "tools/list":
        if mode == "paged":
            i = int((msg.get("params") or {}).get("cursor") or 0)
            page = {"tools": tools[i:i + 1]}
            if i + 1 < len(tools):
                page["nextCursor"] = str(i + 1)
            answer(mid, page)
        else:
            answer(mid, {"tools": tools})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name == "stall":
            continue
        if name == "big":
            answer(mid, {"content": [{"type": "text", "text": "x" * (10 * 1024 * 1024)}]})
        elif name == "grow":
            tools.append({"name": "new_tool_%d" % len(tools), "description": "grown",
                          "inputSchema": {"type": "object"}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            answer(mid, {"content": [{"type": "text", "text": "grown"}]})
        else:
            answer(mid, {"content": [{"type": "text", "text": "ok"}]})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + method}})
