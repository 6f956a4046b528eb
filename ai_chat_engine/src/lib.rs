//! The GUI-free chat engine shared by the Cmd+L overlay and `k`: an agent
//! loop on its own thread streaming [`Event`]s (plain `koi_protocol` data,
//! the same type `k --json` writes), providers, cache-stable prompt
//! assembly, budgets and the session log. Every front end gets its engine
//! from [`EngineBuilder`].
//!
//! ```no_run
//! use ai_chat_engine::{ApprovalReply, EngineBuilder, Front, Event, UserInput};
//!
//! let config = ai_chat_engine::config::config_path();
//! let engine = EngineBuilder::from_config(config.as_deref(), Front::K)
//!     .unwrap()
//!     .build()
//!     .unwrap();
//! let conversation = engine.new_conversation();
//! let (rx, _cancel) = engine.submit(&conversation, UserInput::text("what is in this directory?"));
//! for msg in rx {
//!     match msg {
//!         Event::Token { text: t } => print!("{t}"),
//!         Event::ApprovalAsked { id: Some(id), summary, .. } => {
//!             eprintln!("approve? {summary}");
//!             _cancel.approve(&id, ApprovalReply::Approve);
//!         }
//!         Event::Done => break,
//!         Event::Error { message, .. } => { eprintln!("{message}"); break }
//!         _ => {}
//!     }
//! }
//! ```

#![forbid(unsafe_code)]

pub mod budgets;
mod code_bridge;
pub mod compaction;
pub mod config;
pub mod context;
pub mod cost;
pub mod explore;
pub mod failed_command;
pub mod goal;
pub mod image;
pub mod memory;
pub mod message;
pub mod model;
pub mod paths;
pub mod pictures;
pub mod project_instructions;
pub mod prompt;
pub mod slash;
pub mod store;
pub mod stream;
pub mod suggest;
pub mod time;
pub mod untrusted;
pub mod verdict;

mod agent;
mod conversation;
mod engine;
mod mcp_tools;
mod test_hook;

pub use agent::tool_exec::REPEAT_UNCERTAIN_RESULT;
pub use agent::WRAP_UP_NOTICE;
pub use compaction::{CompactionPolicy, CompactionReport, ContextWindow, Trigger};
pub use config::{AiConfig, ApiKey, ConfigError, Provenance, ProviderKind, ResolvedConfig, Source};
pub use conversation::{Conversation, ABANDONED_RESULT};
pub use cost::{ModelPrice, Prices, UsageReport};
pub use engine::builder::{BuildError, EngineBuilder, Front};
pub use engine::{CancelHandle, Engine, EngineOptions, Waker};
pub use explore::{SubagentEnd, SubagentReport, SubagentStep};
pub use failed_command::FailedCommand;
pub use goal::{BudgetLimits, Goal, GoalBudget, GoalSpec, GoalState};
pub use image::{Image, ImageError, ImageFormat, MediaLevel};
pub use koi_protocol as protocol;
pub use memory::worker::MemoryOutcome;
pub use memory::{MemoryError, MemoryPaths, MemoryReport, MemoryScope};
pub use message::{Attachment, AttachmentKind, Message, ReasoningBlock, ToolCall, UserInput};
pub use model::providers::{Finish, FinishKind, Usage};
pub use model::thinking::ThinkingLevel;
pub use slash::{GoalCommand, MemoryCommand, SlashCommand};
pub use store::recovery::{Step, UncertainCall};
pub use store::session_log::{SessionInfo, UncertainDecision};
pub use store::transcript::TranscriptItem;
pub use stream::{ApprovalReply, EngineError, Event};
