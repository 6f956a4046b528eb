// A small ACP client on the ACP project's TypeScript SDK, for koi's tests:
// it starts `k acp`, plays a plan, and prints what it saw as one JSON
// object on stdout. The tests in cli_chat/tests/k/acp.rs judge it.
//
//   node client.mjs PLAN_JSON
//
// PLAN_JSON fields (all optional but k):
//   k         the k binary; it runs in cwd with this process's environment
//   cwd       the session's working directory (absolute)
//   load      a session id to load instead of starting a new session
//   mcpServers  MCP servers to pass with session/new or session/load
//   mode      a mode id to set before the prompts
//   prompts   prompts to send one after another; each is a string or a
//             list of ACP content blocks
//   answers   option ids to answer permission requests with, in order
//             ("cancelled" answers with the cancelled outcome)
//   cancelWhenFile  a path: once it exists during the first prompt, the
//             client sends session/cancel
//   fs        {path: text}: the client offers fs/read_text_file and
//             fs/write_text_file and serves these texts as open buffers
//
// Output: {init, sessionId, loadUpdates, turns: [{stopReason, error,
// updates, firstChunkMs, ms}], permissions: [request params], cancelAtMs,
// reads: [paths], writes: [{path, content}]}

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const plan = JSON.parse(process.argv[2] ?? "{}");
const out = {
  init: null,
  sessionId: null,
  loadUpdates: [],
  turns: [],
  permissions: [],
  cancelAtMs: null,
  reads: [],
  writes: [],
};
const answers = [...(plan.answers ?? [])];
const buffers = plan.fs ?? null;
let sink = null;

const agent = spawn(plan.k, ["acp"], {
  cwd: plan.cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(
  Writable.toWeb(agent.stdin),
  Readable.toWeb(agent.stdout),
);

const app = acp
  .client({ name: "koi-test-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (sink) sink.push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    out.permissions.push(params);
    const choice = answers.shift() ?? "reject_once";
    if (choice === "cancelled") return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: choice } };
  });
if (buffers) {
  app
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      out.reads.push(params.path);
      if (params.path in buffers) return { content: buffers[params.path] };
      throw acp.RequestError.resourceNotFound(params.path);
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      out.writes.push({ path: params.path, content: params.content });
      buffers[params.path] = params.content;
      return {};
    });
}

function blocks(prompt) {
  return typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
}

async function watchForCancel(ctx, sessionId, t0, done) {
  while (!done.value) {
    if (existsSync(plan.cancelWhenFile)) {
      out.cancelAtMs = performance.now() - t0;
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

try {
  await app.connectWith(stream, async (ctx) => {
    out.init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: !!buffers, writeTextFile: !!buffers },
        terminal: false,
      },
    });
    let sessionId;
    if (plan.load) {
      sink = out.loadUpdates;
      await ctx.request(acp.methods.agent.session.load, {
        sessionId: plan.load,
        cwd: plan.cwd,
        mcpServers: plan.mcpServers ?? [],
      });
      sink = null;
      sessionId = plan.load;
    } else {
      const created = await ctx.request(acp.methods.agent.session.new, {
        cwd: plan.cwd,
        mcpServers: plan.mcpServers ?? [],
      });
      sessionId = created.sessionId;
    }
    out.sessionId = sessionId;
    if (plan.mode) {
      await ctx.request(acp.methods.agent.session.setMode, {
        sessionId,
        modeId: plan.mode,
      });
    }
    for (const [i, prompt] of (plan.prompts ?? []).entries()) {
      const turn = { stopReason: null, error: null, updates: [], firstChunkMs: null, ms: null };
      out.turns.push(turn);
      const t0 = performance.now();
      sink = {
        push(update) {
          if (turn.firstChunkMs === null && update.sessionUpdate === "agent_message_chunk") {
            turn.firstChunkMs = performance.now() - t0;
          }
          turn.updates.push(update);
        },
      };
      const done = { value: false };
      const watcher =
        i === 0 && plan.cancelWhenFile ? watchForCancel(ctx, sessionId, t0, done) : null;
      try {
        const res = await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: blocks(prompt),
        });
        turn.stopReason = res.stopReason;
      } catch (e) {
        turn.error = { code: e.code ?? null, message: String(e.message ?? e) };
      }
      turn.ms = performance.now() - t0;
      done.value = true;
      if (watcher) await watcher;
      sink = null;
    }
  });
} catch (e) {
  out.error = String(e?.stack ?? e);
}
agent.stdin.end();
await new Promise((r) => agent.once("exit", r));
process.stdout.write(JSON.stringify(out) + "\n");
