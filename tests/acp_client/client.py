"""A second ACP client, on the ACP project's Python SDK, for koi's tests.

It starts `k acp`, plays the same plans as client.mjs (k, cwd, prompts,
answers, mode) and prints what it saw as one JSON object on stdout, in the
same shape: {init, sessionId, turns: [{stopReason, error, updates,
firstChunkMs, ms}], permissions}. The SDK lives in ./python (installed by
scripts/deps); run it with PYTHONPATH pointing there.
"""

import asyncio
import json
import os
import sys
import time

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    RequestPermissionResponse,
)


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class TestClient:
    """The client side: records updates and answers permission requests."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.permissions = []
        self.sink = None

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append(
            {
                "sessionId": session_id,
                "toolCall": dump(tool_call),
                "options": [dump(o) for o in options],
            }
        )
        choice = self.answers.pop(0) if self.answers else "reject_once"
        if choice == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )

    async def session_update(self, session_id, update, **kwargs):
        if self.sink is not None:
            self.sink(dump(update))

    async def read_text_file(self, *args, **kwargs):
        raise RequestError.method_not_found("fs/read_text_file")

    async def write_text_file(self, *args, **kwargs):
        raise RequestError.method_not_found("fs/write_text_file")


async def main(plan):
    client = TestClient(plan.get("answers", []))
    out = {"init": None, "sessionId": None, "turns": [], "permissions": client.permissions}
    # The SDK passes a child only a default set of variables unless told;
    # k needs this process's (its config and data directories).
    env = dict(os.environ)
    async with spawn_agent_process(client, plan["k"], "acp", cwd=plan["cwd"], env=env) as (
        conn,
        _proc,
    ):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        out["init"] = dump(init)
        created = await conn.new_session(cwd=plan["cwd"], mcp_servers=[])
        session_id = created.session_id
        out["sessionId"] = session_id
        if plan.get("mode"):
            await conn.set_session_mode(session_id=session_id, mode_id=plan["mode"])
        for prompt in plan.get("prompts", []):
            turn = {"stopReason": None, "error": None, "updates": [], "firstChunkMs": None, "ms": None}
            out["turns"].append(turn)
            t0 = time.perf_counter()

            def sink(update, turn=turn, t0=t0):
                if turn["firstChunkMs"] is None and update.get("sessionUpdate") == "agent_message_chunk":
                    turn["firstChunkMs"] = (time.perf_counter() - t0) * 1000
                turn["updates"].append(update)

            client.sink = sink
            try:
                blocks = [text_block(prompt)] if isinstance(prompt, str) else prompt
                res = await conn.prompt(session_id=session_id, prompt=blocks)
                turn["stopReason"] = res.stop_reason
            except RequestError as e:
                turn["error"] = {"code": e.code, "message": str(e)}
            turn["ms"] = (time.perf_counter() - t0) * 1000
            client.sink = None
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
