//! The Agent Client Protocol's messages that `k acp` reads and writes, as
//! typed data (protocol version 1, the current stable one). Only the
//! fields koi uses are read; unknown fields are ignored, as the protocol
//! asks, so a newer client's extras do no harm.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version `k acp` speaks.
pub const PROTOCOL_VERSION: u16 = 1;

/// `initialize` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The latest version the client supports.
    pub protocol_version: u16,
    /// What the client offers.
    #[serde(default)]
    pub client_capabilities: ClientCapabilities,
}

/// What the client offers the agent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// File access through the editor.
    #[serde(default)]
    pub fs: FsCapabilities,
}

/// The client's file methods.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FsCapabilities {
    /// `fs/read_text_file`.
    #[serde(default)]
    pub read_text_file: bool,
    /// `fs/write_text_file`.
    #[serde(default)]
    pub write_text_file: bool,
}

/// An MCP server the client asks the session to use.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum McpServer {
    /// Over HTTP (`"type": "http"`) or SSE (`"type": "sse"`).
    Remote {
        /// `http` or `sse`.
        #[serde(rename = "type")]
        kind: String,
        /// Its name.
        name: String,
        /// Its URL.
        url: String,
        /// Headers to send.
        #[serde(default)]
        headers: Vec<NameValue>,
    },
    /// A program to start.
    Stdio {
        /// Its name.
        name: String,
        /// The program.
        command: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
        /// Variables to set.
        #[serde(default)]
        env: Vec<NameValue>,
    },
}

/// A name and a value (environment variables, headers).
#[derive(Debug, Clone, Deserialize)]
pub struct NameValue {
    /// The name.
    pub name: String,
    /// The value.
    pub value: String,
}

/// `session/new` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionParams {
    /// The working directory (absolute).
    pub cwd: PathBuf,
    /// MCP servers to connect.
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
}

/// `session/load` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSessionParams {
    /// The session to continue.
    pub session_id: String,
    /// The working directory (absolute).
    pub cwd: PathBuf,
    /// MCP servers to connect.
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
}

/// `session/prompt` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptParams {
    /// The session.
    pub session_id: String,
    /// The user's message.
    pub prompt: Vec<ContentBlock>,
}

/// Params that name only a session (`session/cancel`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionParams {
    /// The session.
    pub session_id: String,
}

/// `session/set_mode` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModeParams {
    /// The session.
    pub session_id: String,
    /// One of the modes the session listed.
    pub mode_id: String,
}

/// One piece of a prompt.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (not offered in the capabilities).
    Image {},
    /// Audio (not offered in the capabilities).
    Audio {},
    /// A reference to something the agent may read.
    ResourceLink {
        /// Where it is.
        uri: String,
        /// Its name.
        name: String,
    },
    /// A resource's contents, embedded.
    Resource {
        /// The contents.
        resource: EmbeddedResource,
    },
}

/// An embedded resource: text, or binary data as base64.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// Where it came from.
    pub uri: String,
    /// Its text (absent for binary contents).
    #[serde(default)]
    pub text: Option<String>,
    /// Binary contents, base64.
    #[serde(default)]
    pub blob: Option<String>,
}

/// Text content, as updates carry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
}

impl Content {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }
}

/// What a tool does, for the client's icons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads files or data.
    Read,
    /// Changes files.
    Edit,
    /// Removes files.
    Delete,
    /// Searches.
    Search,
    /// Runs commands.
    Execute,
    /// Thinks (a subagent).
    Think,
    /// Fetches from the network.
    Fetch,
    /// Anything else.
    Other,
}

/// Where a tool call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Not started (waiting to be judged or approved).
    Pending,
    /// Running.
    InProgress,
    /// Finished.
    Completed,
    /// Failed, refused or not run.
    Failed,
}

/// A file a tool call touches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Location {
    /// Absolute path.
    pub path: PathBuf,
}

/// What a tool call shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    /// Text (output, errors).
    Content {
        /// The text.
        content: Content,
    },
    /// A file change.
    Diff {
        /// Absolute path.
        path: PathBuf,
        /// The file before (absent for a new file).
        #[serde(rename = "oldText")]
        old_text: Option<String>,
        /// The file after.
        #[serde(rename = "newText")]
        new_text: String,
    },
}

/// A tool call, or the fields of one that changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallFields {
    /// The call's id.
    pub tool_call_id: String,
    /// A title for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    /// Where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolStatus>,
    /// What it shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ToolContent>>,
    /// The files it touches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<Location>>,
}

/// One entry of a plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanEntry {
    /// What it is.
    pub content: String,
    /// `high`, `medium` or `low`.
    pub priority: &'static str,
    /// `pending`, `in_progress` or `completed`.
    pub status: &'static str,
}

/// One `session/update`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum SessionUpdate {
    /// A piece of the user's message (replayed history).
    UserMessageChunk {
        /// The piece.
        content: Content,
    },
    /// A piece of the answer.
    AgentMessageChunk {
        /// The piece.
        content: Content,
    },
    /// A piece of the model's reasoning.
    AgentThoughtChunk {
        /// The piece.
        content: Content,
    },
    /// A new tool call.
    ToolCall(ToolCallFields),
    /// A tool call changed.
    ToolCallUpdate(ToolCallFields),
    /// The plan (goal mode).
    Plan {
        /// Its entries.
        entries: Vec<PlanEntry>,
    },
    /// The context in use and the window's size.
    UsageUpdate {
        /// Tokens in context.
        used: u64,
        /// The window, in tokens.
        size: u64,
    },
}

/// `session/update` params.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateParams<'a> {
    /// The session.
    pub session_id: &'a str,
    /// The update.
    pub update: &'a SessionUpdate,
}

/// Why a prompt turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished.
    EndTurn,
    /// The model hit its output limit.
    MaxTokens,
    /// The turn used all its rounds.
    MaxTurnRequests,
    /// The model declined.
    Refusal,
    /// The client cancelled.
    Cancelled,
}

/// The `session/prompt` result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResult {
    /// Why the turn ended.
    pub stop_reason: StopReason,
}

/// One of the modes a session offers.
#[derive(Debug, Clone, Serialize)]
pub struct ModeInfo {
    /// Its id (koi's mode name).
    pub id: &'static str,
    /// Its name for people.
    pub name: &'static str,
    /// What it allows.
    pub description: &'static str,
}

/// The session's modes and the current one.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModeState {
    /// The mode in force.
    pub current_mode_id: String,
    /// Every mode offered.
    pub available_modes: Vec<ModeInfo>,
}

/// The `session/new` result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionResult {
    /// The session's id: koi's conversation id.
    pub session_id: String,
    /// Its modes.
    pub modes: ModeState,
}

/// The `session/load` result.
#[derive(Debug, Clone, Serialize)]
pub struct LoadSessionResult {
    /// Its modes.
    pub modes: ModeState,
}

/// One choice a permission request offers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    /// Its id, returned when chosen.
    pub option_id: &'static str,
    /// Its label.
    pub name: &'static str,
    /// `allow_once`, `allow_always`, `reject_once` or `reject_always`.
    pub kind: &'static str,
}

/// `session/request_permission` params.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionParams<'a> {
    /// The session.
    pub session_id: &'a str,
    /// The call it is about.
    pub tool_call: ToolCallFields,
    /// The choices.
    pub options: Vec<PermissionOption>,
}

/// The client's answer to a permission request.
#[derive(Debug, Clone, Deserialize)]
pub struct PermissionResult {
    /// What happened.
    pub outcome: PermissionOutcome,
}

/// What the user chose, or that the turn was cancelled first.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum PermissionOutcome {
    /// The prompt was cancelled before an answer.
    Cancelled,
    /// An option was chosen.
    Selected {
        /// Which.
        #[serde(rename = "optionId")]
        option_id: String,
    },
}

/// `fs/read_text_file` params.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadTextFileParams<'a> {
    /// The session.
    pub session_id: &'a str,
    /// Absolute path.
    pub path: &'a std::path::Path,
}

/// The `fs/read_text_file` result.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadTextFileResult {
    /// The file's text (the editor's buffer when it has one).
    pub content: String,
}

/// The `initialize` result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version both speak.
    pub protocol_version: u16,
    /// What `k acp` offers.
    pub agent_capabilities: AgentCapabilities,
    /// How to authenticate: none (koi reads its key from its config).
    pub auth_methods: Vec<Value>,
    /// Who we are.
    pub agent_info: AgentInfo,
}

/// What `k acp` offers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `session/load` works.
    pub load_session: bool,
    /// What a prompt may hold besides text and resource links.
    pub prompt_capabilities: PromptCapabilities,
    /// Which MCP transports a session accepts besides stdio.
    pub mcp_capabilities: McpCapabilities,
}

/// What a prompt may hold.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptCapabilities {
    /// Images.
    pub image: bool,
    /// Audio.
    pub audio: bool,
    /// Embedded resources.
    pub embedded_context: bool,
}

/// MCP transports besides stdio.
#[derive(Debug, Clone, Serialize)]
pub struct McpCapabilities {
    /// Streamable HTTP.
    pub http: bool,
    /// SSE.
    pub sse: bool,
}

/// The agent's name and version.
#[derive(Debug, Clone, Serialize)]
pub struct AgentInfo {
    /// Its name.
    pub name: &'static str,
    /// A title for people.
    pub title: &'static str,
    /// Its version.
    pub version: &'static str,
}
