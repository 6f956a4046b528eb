#!/usr/bin/env python3
"""Counts the tests that check the requests they cause (issue 19's figure).

A test "inspects" its requests when its body reads them back
(`.requests()`, `.request_count()`, `second_request_messages(`), directly
or through a helper of the suites that does (`turn_request(` …). A test is
"checked" when it owns a fake provider, directly (`FakeProvider::`) or
through a helper of its file that starts one: since the strict server, every
such request is checked against its dialect's invariants.

Usage: count_request_checks.py [ROOT]   (default: the current directory)
"""
import pathlib
import re
import sys

FILES = ["ai_chat_engine/tests/engine", "cli_chat/tests/k", "term/tests/window",
         "term/src/app/assistant_tests.rs", "tests/tests/e2e"]
INSPECT = re.compile(r"\.requests\(\)|\.request_count\(\)|second_request_messages\(")


def bodies(text):
    """(name, body, is_test) of every fn in a file; a fn in an `impl T`
    block is named `T::name`, as its callers spell it."""
    out = []
    impls = [(m.start(), m.group(1)) for m in re.finditer(r"^impl(?:<[^>]*>)? (\w+)", text, re.M)]
    for m in re.finditer(r"(#\[test\][^\n]*\n(?:\s*#\[[^\n]*\n)*)?([ \t]*)(?:pub(?:\([a-z]+\))? )?fn (\w+)", text):
        name = m.group(3)
        if m.group(2):
            owner = [t for at, t in impls if at < m.start()]
            if owner:
                name = f"{owner[-1]}::{name}"
        i = text.find("{", m.end())
        depth, j = 0, i
        while j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        out.append((name, text[i:j + 1], m.group(1) is not None))
    return out


def calls_any(body, names):
    return any(re.search(rf"(?<![\w:]){re.escape(s.split('::')[-1])}\(", body) for s in names)


def inspects(body, inspectors):
    return bool(INSPECT.search(body)) or calls_any(body, inspectors)


def starts_server(body, starters):
    return "FakeProvider::" in body or any(
        re.search(rf"(?<![\w:]){re.escape(s)}\(", body) for s in starters)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = []
    for f in FILES:
        p = root / f
        if p.is_dir():
            files += sorted(p.rglob("*.rs"))
        elif p.exists():
            files.append(p)
    parsed = [bodies(f.read_text()) for f in files]
    # Helpers anywhere in the suites that start a server (common.rs …),
    # directly or through another helper.
    helpers = [(n, b) for fns in parsed for n, b, t in fns if not t]
    starters = set()
    while True:
        more = {n for n, b in helpers if n not in starters and starts_server(b, starters)}
        if not more:
            break
        starters |= more
    inspectors = set()
    while True:
        more = {n for n, b in helpers if n not in inspectors and inspects(b, inspectors)}
        if not more:
            break
        inspectors |= more
    tests = inspecting = checked = 0
    for fns in parsed:
        for name, body, is_test in fns:
            if not is_test:
                continue
            tests += 1
            if inspects(body, inspectors):
                inspecting += 1
            if starts_server(body, starters):
                checked += 1
    print(f"tests: {tests}")
    print(f"tests that read back their requests: {inspecting}")
    strict = (root / "tests/testkit/src/checks.rs").exists()
    print(f"tests that own a fake provider: {checked}")
    print(f"tests whose every request is checked against the dialect: {checked if strict else 0}")


main()
