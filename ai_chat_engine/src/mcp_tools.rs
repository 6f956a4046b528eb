//! MCP tools in a conversation, cache-stable: the tool list is fixed at
//! the conversation's first request (built-in tools, the fixed `mcp_call`
//! whenever a server is configured, then the tools of servers ready by
//! then, sorted). That request waits a bounded time for servers still
//! starting ([`wait_for_servers`]). A server that becomes ready later, or changes its tools,
//! is announced in a notice (a message, appended) with the tools' schemas,
//! and reached through `mcp_call`; earlier bytes never change.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use ai_mcp::{Entry as McpEntry, Hub};
use ai_tools::{CancelToken, ToolSpec};
use sha2::{Digest, Sha256};

use crate::conversation::Conversation;
use crate::store::session_log::ConversationContext;
use crate::stream::emitter::Emitter;
use crate::stream::Event;

/// The tools a new engine declares for every conversation: the
/// registry's, plus `mcp_call` when any MCP server is configured.
pub(crate) fn base_specs(mut native: Vec<ToolSpec>, hub: Option<&Arc<Hub>>) -> Vec<ToolSpec> {
    if hub.is_some_and(|h| h.is_configured()) {
        native.push(Hub::meta_spec());
    }
    native
}

/// Before a conversation's first request: waits until every enabled
/// server is ready or has failed, bounded by `[mcp] startup_wait_s` and
/// by a cancel, so the tools of servers that start in time are declared
/// from the first request. Says what it waits for, and names a server
/// still starting at the bound (its tools are announced when it is
/// ready).
pub(crate) fn wait_for_servers(hub: Option<&Arc<Hub>>, em: &Emitter, cancel: &CancelToken) {
    let Some(hub) = hub else { return };
    hub.start_all();
    let waiting = hub.starting();
    if waiting.is_empty() {
        return;
    }
    let bound = hub.startup_wait();
    em.send(Event::Notice {
        text: format!(
            "waiting for MCP server{} {} to start (up to {})",
            plural(waiting.len()),
            waiting.join(", "),
            secs(bound)
        ),
    });
    let slow = hub.wait_ready(bound, &|| cancel.is_cancelled());
    if !slow.is_empty() && !cancel.is_cancelled() {
        em.send(Event::Notice {
            text: slow_note(&slow, bound),
        });
    }
}

/// The one line naming servers still starting after the wait.
pub(crate) fn slow_note(slow: &[String], bound: Duration) -> String {
    format!(
        "MCP server{} {} not ready after {}: going on without {}; koi tells the model when {} ready",
        plural(slow.len()),
        slow.join(", "),
        secs(bound),
        if slow.len() == 1 { "its tools" } else { "their tools" },
        if slow.len() == 1 { "it is" } else { "they are" },
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// The MCP tools to declare in a conversation starting now: those of
/// servers ready now, sorted by name (a server still starting is
/// announced later; see [`wait_for_servers`]).
pub(crate) fn declared_now(hub: Option<&Arc<Hub>>) -> Vec<ToolSpec> {
    hub.map(|h| h.ready().iter().map(McpEntry::spec).collect())
        .unwrap_or_default()
}

/// The whole tool list of a conversation.
pub(crate) fn conversation_specs(base: &[ToolSpec], ctx: &ConversationContext) -> Vec<ToolSpec> {
    let mut all = base.to_vec();
    all.extend(ctx.mcp_tools.iter().cloned());
    all
}

fn fingerprint(spec: &ToolSpec) -> String {
    let bytes = serde_json::to_vec(spec).unwrap_or_default();
    Sha256::digest(&bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The notice for tools the model has not been told about in their
/// current form, or `None`; the context is updated to remember them.
pub(crate) fn pending_notice(hub: &Hub, ctx: &mut ConversationContext) -> Option<String> {
    let declared: BTreeMap<&str, &ToolSpec> =
        ctx.mcp_tools.iter().map(|s| (s.name.as_str(), s)).collect();
    let mut fresh: Vec<(McpEntry, ToolSpec)> = Vec::new();
    for entry in hub.ready() {
        let spec = entry.spec();
        let print = fingerprint(&spec);
        let same_as_declared = declared
            .get(spec.name.as_str())
            .is_some_and(|d| **d == spec);
        let told = ctx.mcp_announced.get(&spec.name) == Some(&print);
        if same_as_declared || told {
            continue;
        }
        fresh.push((entry, spec));
    }
    if fresh.is_empty() {
        return None;
    }
    let servers: BTreeSet<&str> = fresh.iter().map(|(e, _)| e.server.as_str()).collect();
    let mut text = format!(
        "MCP tools are available that are not in your tool list (server{} {} became ready or changed its tools). \
Call them with mcp_call {{\"server\": …, \"tool\": …, \"arguments\": {{…}}}}; each is described with its input schema.",
        if servers.len() == 1 { "" } else { "s" },
        servers.iter().copied().collect::<Vec<_>>().join(", ")
    );
    for (entry, spec) in &fresh {
        let schema = serde_json::to_string(&spec.input_schema).unwrap_or_default();
        text.push_str(&format!(
            "\n- server {:?}, tool {:?}: {}\n  input schema: {schema}",
            entry.server, entry.tool.name, entry.tool.description
        ));
        ctx.mcp_announced
            .insert(spec.name.clone(), fingerprint(spec));
    }
    Some(text)
}

/// Announces what changed since the model was last told, before a round.
pub(crate) fn announce(hub: Option<&Arc<Hub>>, conv: &Conversation) {
    let Some(hub) = hub else { return };
    let mut ctx = conv.context();
    if let Some(text) = pending_notice(hub, &mut ctx) {
        conv.notice_with_context(text, ctx);
    }
}
