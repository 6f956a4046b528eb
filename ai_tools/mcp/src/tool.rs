//! The tools the registry lends out: one per MCP tool (`mcp__S__T`), and
//! the fixed `mcp_call` that reaches any of them by server and tool name.

use std::sync::Arc;

use ai_tools::tool::parse_args;
use ai_tools::{
    Effect, McpCall, McpHints, Tool, ToolContext, ToolError, ToolOutput, ToolSource, ToolSpec,
    Workspace,
};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::McpError;
use crate::hub::{Entry, Hub};

/// The name of the meta-tool.
pub const META_TOOL: &str = "mcp_call";

const META_DESCRIPTION: &str = "Call a tool of an MCP server by the server's and the tool's names. \
Use it for MCP tools that a notice in the conversation announced (with their schemas); tools \
declared directly can be called by their own names. `arguments` must match the tool's input schema.";

/// One MCP tool under its exposed name.
pub(crate) struct McpTool {
    pub hub: Arc<Hub>,
    pub entry: Entry,
}

/// `mcp_call(server, tool, arguments)`.
pub(crate) struct MetaTool {
    pub hub: Arc<Hub>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetaArgs {
    server: String,
    tool: String,
    #[serde(default)]
    arguments: Option<Value>,
}

fn object_or_empty(args: &Value) -> Value {
    match args {
        Value::Null => json!({}),
        other => other.clone(),
    }
}

fn effect_of(entry_server: &str, tool: &str, args: &Value, hub: &Hub, hints: McpHints) -> Effect {
    let trust = hub
        .server(entry_server)
        .map(|s| s.config.trust)
        .unwrap_or_default();
    Effect::Mcp(McpCall {
        server: entry_server.to_string(),
        tool: tool.to_string(),
        arguments: object_or_empty(args).to_string(),
        trust,
        hints,
    })
}

/// Runs one call on `server` and turns the answer into a tool output.
fn run_call(
    hub: &Hub,
    server: &str,
    tool: &str,
    args: &Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let Some(s) = hub.server(server) else {
        return Err(ToolError::Failed(format!("no MCP server named {server:?}")));
    };
    let progress = ctx.progress.clone();
    let on_progress: Option<Box<dyn Fn(crate::Progress) + Send + Sync>> = progress
        .is_listening()
        .then(|| Box::new(move |p: crate::Progress| progress.report(p.to_string())) as _);
    let outcome = s.call(tool, object_or_empty(args), &ctx.cancel, on_progress);
    match outcome {
        Ok(result) => crate::result::to_output(server, tool, &result),
        Err(McpError::Cancelled) => Err(ToolError::Cancelled),
        Err(e @ McpError::Gone(_)) => Err(ToolError::Failed(format!(
            "MCP server {server} failed during the call to {tool}: {e}. Whether the call had an effect is unknown; koi restarts the server on its next use."
        ))),
        Err(e @ McpError::Timeout { .. }) => Err(ToolError::Failed(format!(
            "MCP server {server} did not finish {tool}: {e}. koi stopped the server and restarts it on its next use."
        ))),
        Err(e) => Err(ToolError::Failed(format!("MCP server {server}, tool {tool}: {e}"))),
    }
}

fn approval_detail(server: &str, tool: &str, args: &Value) -> String {
    let pretty = serde_json::to_string_pretty(&object_or_empty(args)).unwrap_or_default();
    format!("MCP server: {server}\ntool: {tool}\narguments:\n{pretty}")
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.entry.exposed
    }
    fn description(&self) -> &str {
        &self.entry.tool.description
    }
    fn input_schema(&self) -> Value {
        self.entry.tool.input_schema.clone()
    }
    fn spec(&self) -> ToolSpec {
        self.entry.spec()
    }
    fn effect(&self, args: &Value, _ws: &Workspace) -> Result<Effect, ToolError> {
        if !matches!(args, Value::Object(_) | Value::Null) {
            return Err(ToolError::BadArgs {
                tool: self.entry.exposed.clone(),
                message: "arguments must be a JSON object".into(),
            });
        }
        Ok(effect_of(
            &self.entry.server,
            &self.entry.tool.name,
            args,
            &self.hub,
            self.entry.tool.hints,
        ))
    }
    fn run(&self, args: &Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        run_call(
            &self.hub,
            &self.entry.server,
            &self.entry.tool.name,
            args,
            ctx,
        )
    }
    fn approval_preview(&self, args: &Value, _ws: &Workspace) -> Option<String> {
        Some(approval_detail(
            &self.entry.server,
            &self.entry.tool.name,
            args,
        ))
    }
}

impl MetaTool {
    pub(crate) fn spec_static() -> ToolSpec {
        ToolSpec {
            name: META_TOOL.to_string(),
            description: META_DESCRIPTION.to_string(),
            input_schema: meta_schema(),
        }
    }

    fn parse(&self, args: &Value) -> Result<(MetaArgs, McpHints), ToolError> {
        let a: MetaArgs = parse_args(META_TOOL, args)?;
        let Some(server) = self.hub.server(&a.server) else {
            let names: Vec<String> = self.hub.status().into_iter().map(|s| s.name).collect();
            return Err(ToolError::BadArgs {
                tool: META_TOOL.into(),
                message: format!(
                    "no MCP server named {:?}; configured: {}",
                    a.server,
                    names.join(", ")
                ),
            });
        };
        if let Some(arguments) = &a.arguments {
            if !arguments.is_object() {
                return Err(ToolError::BadArgs {
                    tool: META_TOOL.into(),
                    message: "`arguments` must be a JSON object".into(),
                });
            }
        }
        // Unknown tools are left to the server to refuse; their hints are
        // unknown, so they are judged as untrusted.
        let hints = server
            .known_tools()
            .and_then(|t| t.iter().find(|t| t.name == a.tool).map(|t| t.hints))
            .unwrap_or_default();
        Ok((a, hints))
    }
}

fn meta_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "The MCP server's name."},
            "tool": {"type": "string", "description": "The tool's name on that server."},
            "arguments": {"type": "object", "description": "The tool's arguments."}
        },
        "required": ["server", "tool"],
        "additionalProperties": false
    })
}

impl Tool for MetaTool {
    fn name(&self) -> &str {
        META_TOOL
    }
    fn description(&self) -> &str {
        META_DESCRIPTION
    }
    fn input_schema(&self) -> Value {
        meta_schema()
    }
    fn effect(&self, args: &Value, _ws: &Workspace) -> Result<Effect, ToolError> {
        let (a, hints) = self.parse(args)?;
        Ok(effect_of(
            &a.server,
            &a.tool,
            a.arguments.as_ref().unwrap_or(&Value::Null),
            &self.hub,
            hints,
        ))
    }
    fn run(&self, args: &Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (a, _) = self.parse(args)?;
        run_call(
            &self.hub,
            &a.server,
            &a.tool,
            a.arguments.as_ref().unwrap_or(&Value::Null),
            ctx,
        )
    }
    fn approval_preview(&self, args: &Value, _ws: &Workspace) -> Option<String> {
        let (a, _) = self.parse(args).ok()?;
        Some(approval_detail(
            &a.server,
            &a.tool,
            a.arguments.as_ref().unwrap_or(&Value::Null),
        ))
    }
}

impl Hub {
    /// The spec of `mcp_call`: always the same bytes.
    pub fn meta_spec() -> ToolSpec {
        MetaTool::spec_static()
    }
}

/// The hub lends its servers' tools, and `mcp_call`, to a registry.
impl ToolSource for Hub {
    fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let hub = self.strong()?;
        if name == META_TOOL {
            return self
                .is_configured()
                .then(|| Arc::new(MetaTool { hub }) as Arc<dyn Tool>);
        }
        let entry = self.known().into_iter().find(|e| e.exposed == name)?;
        Some(Arc::new(McpTool { hub, entry }))
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.known().into_iter().map(|e| e.exposed).collect();
        if self.is_configured() {
            names.push(META_TOOL.to_string());
        }
        names
    }
}
