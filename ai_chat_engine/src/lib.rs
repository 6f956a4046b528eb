//! The GUI-free chat engine shared by the Cmd+L overlay and `k`: an agent
//! loop on its own thread streaming typed [`StreamMsg`] events, providers,
//! cache-stable prompt assembly, budgets and the session log. Every front
//! end gets its engine from [`EngineBuilder`].
//!
//! ```no_run
//! use ai_chat_engine::{ApprovalReply, EngineBuilder, Front, StreamMsg, UserInput};
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
//!         StreamMsg::Token(t) => print!("{t}"),
//!         StreamMsg::ApprovalRequired { id, summary, .. } => {
//!             eprintln!("approve? {summary}");
//!             _cancel.approve(&id, ApprovalReply::Approve);
//!         }
//!         StreamMsg::Done => break,
//!         StreamMsg::Err(e) => { eprintln!("{e}"); break }
//!         _ => {}
//!     }
//! }
//! ```

pub mod budgets;
mod code_bridge;
pub mod compaction;
pub mod config;
pub mod context;
pub mod cost;
pub mod failed_command;
pub mod goal;
pub mod image;
pub mod memory;
pub mod message;
pub mod paths;
pub mod probe;
pub mod project_instructions;
pub mod prompt;
pub mod recovery;
pub mod session_list;
pub mod session_log;
pub mod slash;
pub mod sse;
pub mod stream_msg;
pub mod suggest;
pub mod thinking;
pub mod transcript;
pub mod untrusted;
pub mod verdict;

mod agent_loop;
mod builder;
mod conversation;
mod emitter;
mod engine;
mod event;
pub mod explore;
pub mod fork;
pub mod masking;
mod mcp_tools;
mod memory_worker;
mod model_client;
mod parallel;
mod preview;
mod provider_kind;
mod providers;
mod test_hook;
pub mod time;
mod tool_exec;
mod transport;

pub use agent_loop::WRAP_UP_NOTICE;
pub use builder::{BuildError, EngineBuilder, Front};
pub use compaction::{CompactionPolicy, CompactionReport, ContextWindow, Trigger};
pub use config::{AiConfig, ApiKey, ConfigError, Provenance, ProviderKind, ResolvedConfig, Source};
pub use conversation::{Conversation, ABANDONED_RESULT};
pub use cost::{ModelPrice, Prices, UsageReport};
pub use engine::{CancelHandle, Engine, EngineOptions, Waker};
pub use event::error_event;
pub use explore::{SubagentEnd, SubagentReport, SubagentStep};
pub use failed_command::FailedCommand;
pub use goal::{BudgetLimits, Goal, GoalBudget, GoalReport, GoalSpec, GoalState};
pub use image::{Image, ImageError, ImageFormat, MediaLevel};
pub use koi_protocol as protocol;
pub use memory::{MemoryError, MemoryPaths, MemoryReport, MemoryScope};
pub use memory_worker::MemoryOutcome;
pub use message::{Attachment, AttachmentKind, Message, ReasoningBlock, ToolCall, UserInput};
pub use providers::{Finish, FinishKind, Usage};
pub use recovery::{Step, UncertainCall};
pub use session_log::{SessionInfo, UncertainDecision};
pub use slash::{GoalCommand, MemoryCommand, SlashCommand};
pub use stream_msg::{ApprovalReply, EngineError, StreamMsg};
pub use thinking::ThinkingLevel;
pub use tool_exec::REPEAT_UNCERTAIN_RESULT;
pub use transcript::TranscriptItem;
