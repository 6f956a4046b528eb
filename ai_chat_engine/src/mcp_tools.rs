//! MCP tools in a conversation, cache-stable: the tool list is fixed at
//! the conversation's first request (built-in tools, the fixed `mcp_call`
//! whenever a server is configured, then the tools of servers ready by
//! then, sorted). A server that becomes ready later, or changes its tools,
//! is announced in a notice (a message, appended) with the tools' schemas,
//! and reached through `mcp_call`; earlier bytes never change.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ai_mcp::{Entry as McpEntry, Hub};
use ai_tools::ToolSpec;
use sha2::{Digest, Sha256};

use crate::conversation::Conversation;
use crate::session_log::ConversationContext;

/// The tools a new engine declares for every conversation: the
/// registry's, plus `mcp_call` when any MCP server is configured.
pub(crate) fn base_specs(mut native: Vec<ToolSpec>, hub: Option<&Arc<Hub>>) -> Vec<ToolSpec> {
    if hub.is_some_and(|h| h.is_configured()) {
        native.push(Hub::meta_spec());
    }
    native
}

/// The MCP tools to declare in a conversation starting now: those of
/// servers ready now, sorted by name (a slow server never holds up the
/// first request; it is announced later).
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
