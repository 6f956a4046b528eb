//! The assistant's tools (files, search, shell, web, memory), the registry
//! that describes them to the engine, and the approval policy in front of
//! anything that changes the world.
//!
//! The engine's view (see `API.md` beside this crate):
//! 1. [`Registry::standard`] builds every tool for one workspace.
//! 2. [`Registry::specs`] advertises them to the model.
//! 3. For each call: [`Registry::judge`], once (effect, decision, proof,
//!    footprint and clearance: pure), then [`Registry::run_approved`] with
//!    the [`Approved`] that only a [`Judged`] call can give, on a plain
//!    thread with a [`CancelToken`].

pub mod access;
pub mod bridge;
pub mod cancel;
pub mod editor;
pub mod effect;
pub mod error;
pub mod judged;
pub mod mcp_effect;
pub mod mode;
pub mod net_scope;
pub mod output;
pub mod plural;
pub mod policy;
pub mod policy_table;
pub mod process;
pub mod registry;
pub mod run_tag;
pub mod sandbox;
pub mod secrets;
pub mod source;
pub mod spawn;
pub mod terminal_text;
pub mod tool;
pub mod tools;
pub mod unicode_fold;
pub mod verdict;
pub mod workspace;

pub use access::{Access, Footprint};
pub use bridge::{Bridge, BridgeAnswer, CallBridge};
pub use cancel::CancelToken;
pub use editor::{Editor, EditorFiles};
pub use effect::Effect;
pub use error::ToolError;
pub use judged::{Approved, Clearance, Judged};
pub use mcp_effect::{McpCall, McpHints, McpTrust};
pub use mode::{Decision, Mode, ParseModeError};
pub use output::ToolOutput;
pub use policy::Proof;
pub use registry::{Registry, RegistryConfig};
pub use sandbox::{Level, RunSandbox, SandboxConfig, SandboxMode, SandboxStatus};
pub use source::{ToolRef, ToolSource};
pub use tool::MemoryFiles;
pub use tool::{ProgressSink, Tool, ToolContext, ToolSpec};
pub use workspace::Workspace;
