//! The `Tool` trait every tool implements, and what a call runs with.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::bridge::CallBridge;
use crate::cancel::CancelToken;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::process::{BackgroundTable, ShellJob};
use crate::run_tag::RunTag;
use crate::sandbox::RunSandbox;
use crate::workspace::Workspace;

/// Output budget of a tool that does not declare its own: about 4,000
/// tokens, enough for a useful answer while leaving room for many calls in
/// one context window.
pub const DEFAULT_OUTPUT_BUDGET: usize = 16_000;

/// Room for a tool's own header and footer lines on top of its body budget.
pub const HEADER_ALLOWANCE: usize = 1_000;

/// What a tool advertises to the model. Owned: the tool list belongs to a
/// conversation (MCP servers add names at run time), and a resumed
/// conversation reads it back from its log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The tool's name, as the model calls it.
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// JSON schema of its arguments object.
    pub input_schema: serde_json::Value,
}

/// Where a running tool reports how far along it is (an MCP server's
/// progress notifications): the front end shows it as the call's live
/// status; the model never sees it.
#[derive(Clone, Default)]
pub struct ProgressSink(Option<Arc<dyn Fn(String) + Send + Sync>>);

impl ProgressSink {
    /// A sink that hands each report to `f`.
    pub fn new(f: impl Fn(String) + Send + Sync + 'static) -> Self {
        ProgressSink(Some(Arc::new(f)))
    }

    /// Reports one status line (dropped when nobody listens).
    pub fn report(&self, text: String) {
        if let Some(f) = &self.0 {
            f(text);
        }
    }

    /// Whether anyone listens.
    pub fn is_listening(&self) -> bool {
        self.0.is_some()
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressSink(listening)"
        } else {
            "ProgressSink(none)"
        })
    }
}

/// The memory files of one workspace, the user's (global) and the
/// project's: what `memory_read` reads (`ai_chat_engine::memory` says
/// where they live).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFiles {
    /// Facts about the user, for every workspace.
    pub global: PathBuf,
    /// Facts about this workspace.
    pub project: PathBuf,
}

/// Everything a running tool may use. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The workspace root relative paths resolve against.
    pub workspace: Workspace,
    /// Checked by long tools; shell tools kill their group on cancel.
    pub cancel: CancelToken,
    /// Extra environment variable names to scrub from subprocesses (the
    /// configured API key variables), on top of the built-in patterns.
    pub secret_env_vars: Arc<Vec<String>>,
    /// Background processes started by `shell_bg`.
    pub background: BackgroundTable,
    /// The memory files `memory_read` shows (`None`: memory is off).
    pub memory: Option<MemoryFiles>,
    /// The editor whose buffers the file tools read and write (`None`:
    /// the disk).
    pub editor: crate::editor::Editor,
    /// How a process this call starts is confined (set per call by the
    /// registry from the policy's proof).
    pub sandbox: RunSandbox,
    /// The tag this run's processes carry. The caller makes it (and
    /// records it before the run, so a later start can find strays of a
    /// crashed run).
    pub run_tag: RunTag,
    /// Where progress goes (the call's live status).
    pub progress: ProgressSink,
    /// Where a `run_code` program's calls go (none for other tools).
    pub bridge: CallBridge,
}

impl ToolContext {
    /// A shell command of this call: its tag, its sandbox, the secrets to
    /// scrub.
    pub fn shell_job<'a>(&'a self, command: &'a str, cwd: &'a Path) -> ShellJob<'a> {
        ShellJob {
            command,
            cwd,
            workspace: self.workspace.root(),
            extra_secrets: &self.secret_env_vars,
            tag: &self.run_tag,
            sandbox: &self.sandbox,
        }
    }
}

/// One tool. Implementations are small typed structs; the registry holds
/// them as trait objects. Tools run on plain threads, never inside a tokio
/// runtime.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// JSON schema of the arguments object.
    fn input_schema(&self) -> serde_json::Value;
    /// What this call would do, for the approval policy. Bad arguments are
    /// a [`ToolError::BadArgs`] the model can read.
    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError>;
    /// Run the call. Only after the policy said Allow (or the user agreed).
    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;

    /// Most characters of [`ToolOutput::for_model`] this tool returns; the
    /// registry cuts anything longer (head + tail) as a backstop.
    fn output_budget(&self) -> usize {
        DEFAULT_OUTPUT_BUDGET
    }

    /// Extra detail for an approval prompt, e.g. the diff an edit would
    /// make. Reads but never changes anything; `None` when there is nothing
    /// useful to add.
    fn approval_preview(&self, _args: &serde_json::Value, _ws: &Workspace) -> Option<String> {
        None
    }

    /// Why the model asks for more than the read-only sandbox gives (write
    /// and network access for a command), when it does: such a call is
    /// never contained, so it asks and shows the user the reason.
    fn escalation(&self, _args: &serde_json::Value) -> Option<String> {
        None
    }

    /// Whether a read-only agent (the `explore` subagent) is offered this
    /// tool: true when its calls only read, or when the policy can prove
    /// some of them read-only (`shell_exec`). Each call is still judged in
    /// plan mode. Leaving it out means the tool is not offered.
    fn offered_read_only(&self) -> bool {
        false
    }

    /// The advertised spec.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            input_schema: self.input_schema(),
        }
    }
}

/// Parse a tool's typed arguments, turning serde's complaint into an error
/// the model can read.
pub fn parse_args<T: DeserializeOwned>(
    tool: &str,
    args: &serde_json::Value,
) -> Result<T, ToolError> {
    let args = match args {
        // Some models send `null` for a tool without parameters.
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        serde_json::Value::Object(_) => args.clone(),
        other => {
            return Err(ToolError::BadArgs {
                tool: tool.to_string(),
                message: format!("arguments must be a JSON object, not {other}"),
            })
        }
    };
    serde_json::from_value(args).map_err(|e| ToolError::BadArgs {
        tool: tool.to_string(),
        message: e.to_string(),
    })
}
