//! The engine: built once from config and a tool registry, it runs each
//! submitted turn on its own thread and streams [`Event`]s back.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use ai_tools::registry::panic_message;
use ai_tools::{CancelToken, Mode, Registry, Tool};
use crossbeam_channel::{Receiver, Sender};
use koi_protocol::Op;

use crate::agent::tool_exec::ToolRunner;
use crate::agent::{Agent, LoopSettings};
use crate::budgets::{CANCEL_POLL, MAX_MODEL_NAME};
use crate::compaction::{CompactionPolicy, ContextWindow};
use crate::config::{AiConfig, ProviderKind, ResolvedConfig};
use crate::conversation::{ConvState, Conversation, Origin};
use crate::explore::ExploreTool;
use crate::goal::{run_goal, GoalSpec, GoalStart};
use crate::memory::worker::{self, MemoryWorker};
use crate::memory::{memory_dir, MEMORY_IDLE_DELAY};
use crate::message::UserInput;
use crate::model::client::ModelClient;
use crate::model::thinking::{ModeMemory, MODES_FILE};
use crate::prompt::system_prompt;
use crate::store::session_log::{self, ConversationContext};
use crate::stream::emitter::Emitter;
pub use crate::stream::emitter::Waker;
use crate::stream::{ApprovalReply, EngineError, Event};

/// The name both koi's search tool and the providers' own search go by.
const NATIVE_SEARCH_NAME: &str = "web_search";

/// Front-end choices that are not part of the user's config file.
#[derive(Clone)]
pub struct EngineOptions {
    /// Approval mode for this engine (overrides `[ai] approval_mode`).
    pub mode: Option<Mode>,
    /// Approval wait (overrides `[ai] approval_timeout_secs`).
    pub approval_timeout: Option<Duration>,
    /// Where sessions live (default: the platform data dir + `koi`).
    pub data_dir: Option<PathBuf>,
    /// Where SOUL/STYLE/SKILL.md are read (default: koi's config dir).
    pub config_dir: Option<PathBuf>,
    /// Write session logs at all.
    pub persist: bool,
    /// Ask `fast_model` for a title after a conversation's first turn.
    pub generate_titles: bool,
    /// When older history is compacted (default: window-relative
    /// thresholds and phase boundaries, see [`crate::compaction`]).
    pub compaction: CompactionPolicy,
    /// With nothing configured, probe loopback ports for a local server.
    pub probe_local: bool,
    /// Called after each message is sent.
    pub waker: Option<Waker>,
    /// Pause between the demo provider's words (0 in tests).
    pub demo_word_delay: Duration,
    /// The MCP servers whose tools the registry lends out (its source):
    /// started in the background here, declared and announced per
    /// conversation.
    pub mcp: Option<Arc<ai_mcp::Hub>>,
    /// How long after a turn, with no new one, a conversation counts as
    /// idle and the memory curator reads it (see [`crate::memory`]).
    pub memory_idle_delay: Duration,
    /// Offer the `explore` tool (a read-only subagent; see
    /// [`crate::explore`]).
    pub explore: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            mode: None,
            approval_timeout: None,
            data_dir: None,
            config_dir: crate::config::config_dir(),
            persist: true,
            generate_titles: true,
            compaction: CompactionPolicy::Adaptive,
            probe_local: true,
            waker: None,
            // A visible but quick typing effect for the scripted demo.
            demo_word_delay: Duration::from_millis(12),
            mcp: None,
            memory_idle_delay: MEMORY_IDLE_DELAY,
            explore: true,
        }
    }
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("mode", &self.mode)
            .field("data_dir", &self.data_dir)
            .field("persist", &self.persist)
            .field("generate_titles", &self.generate_titles)
            .field("compaction", &self.compaction)
            .finish_non_exhaustive()
    }
}

/// One running turn's handle: where its front end sends
/// [`Op`]s. [`CancelHandle::cancel`] stops it (streaming stops, running
/// tools are told to stop, and the turn ends with an `Error` of kind
/// `Cancelled` within ~100 ms); [`CancelHandle::approve`] answers its
/// approval requests.
/// When every clone is dropped, a pending approval is denied.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    token: CancelToken,
    ops: Arc<Sender<Op>>,
}

impl CancelHandle {
    /// Requests cancellation (idempotent).
    pub fn cancel(&self) {
        self.token.cancel();
    }

    /// Tells the turn `op`: [`Op::Cancel`] cancels, [`Op::Approve`]
    /// answers the approval request of its call. A turn that has ended
    /// ignores it; other ops are the engine's ([`Engine::apply`]).
    pub fn send(&self, op: Op) {
        match op {
            Op::Cancel => self.cancel(),
            op => {
                let _ = self.ops.send(op);
            }
        }
    }

    /// Answers the approval request of call `call_id`.
    pub fn approve(&self, call_id: &str, decision: ApprovalReply) {
        self.send(Op::Approve {
            call_id: call_id.to_string(),
            decision,
        });
    }

    /// Whether cancel was requested.
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

/// A running turn as [`Engine::apply`] reaches it: its ops, weakly (the
/// front end's handles own them), and its cancel token.
type TurnRef = (Weak<Sender<Op>>, CancelToken);

/// The chat engine. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct Engine {
    agent: Arc<Agent>,
    /// Where sessions live (`None`: not saved).
    sessions_dir: Option<PathBuf>,
    waker: Option<Waker>,
    /// The memory curator (`None`: memory is off).
    memory: Option<MemoryWorker>,
    /// Each conversation's latest turn, for [`Engine::apply`]: weak, so a
    /// turn whose handles are all gone denies its pending approval.
    turns: Mutex<HashMap<String, TurnRef>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", self.agent.client.config())
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Builds an engine. Resolves the config (probing local servers when
    /// nothing is configured and `options.probe_local`), assembles the
    /// static system prompt, and starts the I/O runtime.
    pub fn new(
        config: AiConfig,
        registry: Arc<Registry>,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        let local = (options.probe_local && config.is_unconfigured())
            .then(crate::model::probe::find_local_server)
            .flatten();
        let cfg = config.resolve_with(&|k| std::env::var(k).ok(), local.as_ref());
        Self::with_resolved(cfg, registry, options)
    }

    /// Builds an engine from already resolved values.
    pub fn with_resolved(
        cfg: ResolvedConfig,
        registry: Arc<Registry>,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        // Servers start first: the prompt and the rest are built while
        // they spawn.
        if let Some(hub) = &options.mcp {
            hub.start_all();
        }
        let system_prompt = system_prompt(options.config_dir.as_deref());
        let mode = options.mode.unwrap_or(cfg.approval_mode);
        let approval_timeout = options.approval_timeout.unwrap_or(cfg.approval_timeout);
        let sessions_dir = if !options.persist {
            None
        } else {
            match &options.data_dir {
                Some(d) => Some(session_log::sessions_dir(d)),
                None => session_log::default_sessions_dir(),
            }
        };
        // Saved beside the sessions, and only where sessions are.
        let modes_file = sessions_dir
            .as_ref()
            .and_then(|_| options.data_dir.clone().or_else(crate::config::data_dir))
            .map(|d| d.join(MODES_FILE));
        // Memory lives beside the sessions, and only where sessions are
        // saved; never in the demo (the config says so).
        let memory_dir = sessions_dir
            .as_ref()
            .and_then(|_| memory_dir(cfg.memory, options.persist, options.data_dir.as_deref()));
        let native_web_search = cfg.native_web_search;
        let client = Arc::new(ModelClient::new(
            cfg,
            options.demo_word_delay,
            ModeMemory::load(modes_file),
        )?);
        let explore = options.explore.then(|| {
            Arc::new(ExploreTool::new(
                Arc::clone(&client),
                Arc::clone(&registry),
                &system_prompt,
            ))
        });
        // The engine's own tool follows the registry's, before `mcp_call`.
        let mut native = registry.specs();
        native.extend(explore.iter().map(|e| e.spec()));
        let mut specs = crate::mcp_tools::base_specs(native, options.mcp.as_ref());
        if native_web_search {
            // The provider's own `web_search` takes the name; one tool
            // per name.
            specs.retain(|s| s.name != NATIVE_SEARCH_NAME);
        }
        let agent = Agent {
            client,
            runner: ToolRunner::new(registry, explore, mode, approval_timeout),
            system_prompt,
            specs,
            mcp: options.mcp,
            settings: LoopSettings {
                config_dir: options.config_dir,
                generate_titles: options.generate_titles,
                compaction: options.compaction,
                memory_dir: memory_dir.clone(),
            },
        };
        let agent = Arc::new(agent);
        let memory = memory_dir.and_then(|dir| {
            MemoryWorker::start(Arc::clone(&agent), dir, options.memory_idle_delay)
        });
        Ok(Engine {
            agent,
            sessions_dir,
            waker: options.waker,
            memory,
            turns: Mutex::new(HashMap::new()),
        })
    }

    /// The configuration the engine started with (and where each value
    /// came from). The model in use is [`Engine::model`].
    pub fn config(&self) -> &ResolvedConfig {
        self.agent.client.config()
    }

    /// True when running the offline demo.
    pub fn is_demo(&self) -> bool {
        self.config().provider == ProviderKind::Demo
    }

    /// The static system prompt every request starts with.
    pub fn system_prompt(&self) -> &str {
        &self.agent.system_prompt
    }

    /// Bytes the next request for `conversation` would send (for a context
    /// meter; compare with [`Engine::context_window`]'s bytes).
    pub fn request_bytes(&self, conversation: &Conversation) -> usize {
        self.agent.request_bytes(&conversation.messages())
    }

    /// The context window of the model in use: configured, known for its
    /// family, or a conservative default.
    pub fn context_window(&self) -> ContextWindow {
        self.config().compaction.window_for(&self.model())
    }

    /// Compacts `conversation` now (`/compact`): summarises older history
    /// in-band whatever the thresholds say. The stream carries one
    /// [`Event::Compaction`] and ends with `Done` (or `Error` when
    /// cancelled or the conversation is busy).
    pub fn compact(&self, conversation: &Conversation) -> (Receiver<Event>, CancelHandle) {
        self.start(conversation, Job::Compact)
    }

    /// The approval mode in force.
    pub fn mode(&self) -> Mode {
        self.agent.runner.mode()
    }

    /// Changes the approval mode for turns that start afterwards.
    pub fn set_mode(&self, mode: Mode) {
        self.agent.runner.set_mode(mode);
    }

    /// The model turns are sent to.
    pub fn model(&self) -> String {
        self.agent.client.model()
    }

    /// Sends turns that start afterwards to `model` (same provider and
    /// endpoint). The system prompt and tools do not change, so a
    /// conversation keeps its cacheable prefix on providers that share a
    /// cache across models. An empty or over-long name is refused.
    pub fn set_model(&self, model: &str) -> Result<(), EngineError> {
        let model = model.trim();
        if model.is_empty() || model.len() > MAX_MODEL_NAME || model.chars().any(char::is_control) {
            return Err(EngineError::Config(format!(
                "{model:?} is not a model name"
            )));
        }
        self.agent.client.set_model(model);
        Ok(())
    }

    /// The tool registry (for judging a command as a turn would).
    pub fn registry(&self) -> &Registry {
        self.agent.runner.registry()
    }

    /// How this engine's shell commands are confined, for a status line.
    pub fn sandbox_status(&self) -> ai_tools::SandboxStatus {
        ai_tools::SandboxStatus::of(self.config().sandbox.mode)
    }

    /// The directory tools work in (the registry's workspace root).
    pub fn workspace(&self) -> &Path {
        self.agent.runner.registry().workspace().root()
    }

    /// A call's arguments for showing to the user: values of secret-named
    /// fields and of secret environment variables masked.
    pub fn masked_arguments(&self, arguments: &str) -> String {
        crate::stream::masking::mask_arguments(arguments, &self.config().key_env_vars)
    }

    /// A new, empty conversation in the registry's workspace. Its log file
    /// (and its lock) is created by its first turn.
    pub fn new_conversation(&self) -> Conversation {
        Conversation::from_state(ConvState::new(
            crate::time::new_session_id(),
            self.workspace(),
            self.sessions_dir.clone(),
        ))
    }

    /// Starts a turn on its own thread. Returns the stream of messages
    /// (ending with exactly one `Done` or `Error`) and a cancel handle.
    /// Whatever an interrupted turn left (calls committed but not run, an
    /// approval never answered) is settled first; calls whose effect is
    /// uncertain must be decided first
    /// ([`Conversation::decide_uncertain`]), or the turn ends with
    /// [`EngineError::Uncertain`] before anything runs.
    pub fn submit(
        &self,
        conversation: &Conversation,
        input: UserInput,
    ) -> (Receiver<Event>, CancelHandle) {
        self.start(conversation, Job::Turn(Some(input)))
    }

    /// Continues a conversation an interruption left unfinished, as the
    /// recovery planner says ([`Conversation::next_step`]): runs what was
    /// committed, asks again what was being asked, and calls the model
    /// when the calls are settled. Ends at once with `Done` when there is
    /// nothing to continue.
    pub fn resume(&self, conversation: &Conversation) -> (Receiver<Event>, CancelHandle) {
        self.start(conversation, Job::Turn(None))
    }

    /// Turns `spec` into the conversation's goal and works on it over
    /// turns (goal mode): each turn ends with the check; a failing check
    /// brings a continue prompt, within the budget. The stream carries
    /// every turn's messages and [`Event::Goal`] reports, and ends
    /// once: `Done` when the goal is complete or blocked, `Error` with the
    /// failure that paused it.
    pub fn start_goal(
        &self,
        conversation: &Conversation,
        spec: GoalSpec,
    ) -> (Receiver<Event>, CancelHandle) {
        self.start(conversation, Job::Goal(GoalStart::New(spec)))
    }

    /// Applies a front end's [`Op`] to `conversation`: `Submit` and
    /// `Compact` start a stream (returned); `Decide` settles an uncertain
    /// call; `Approve` and `Cancel` go to the conversation's running turn
    /// (nothing happens when none runs).
    pub fn apply(
        &self,
        conversation: &Conversation,
        op: Op,
    ) -> Result<Option<(Receiver<Event>, CancelHandle)>, EngineError> {
        match op {
            Op::Submit { text } => Ok(Some(self.submit(conversation, UserInput::text(text)))),
            Op::Compact => Ok(Some(self.compact(conversation))),
            Op::Decide { call_id, decision } => {
                conversation.decide_uncertain(&call_id, decision)?;
                Ok(None)
            }
            op @ (Op::Approve { .. } | Op::Cancel) => {
                let turn = self
                    .turns
                    .lock()
                    .ok()
                    .and_then(|t| t.get(&conversation.id()).cloned());
                if let Some((ops, token)) = turn {
                    match op {
                        Op::Cancel => token.cancel(),
                        op => {
                            if let Some(ops) = ops.upgrade() {
                                let _ = ops.send(op);
                            }
                        }
                    }
                }
                Ok(None)
            }
        }
    }

    /// Goes on with a paused or blocked goal (`/goal resume`).
    pub fn continue_goal(&self, conversation: &Conversation) -> (Receiver<Event>, CancelHandle) {
        self.start(conversation, Job::Goal(GoalStart::Continue))
    }

    /// Ends the conversation's goal (`/goal clear`); `Ok(false)` when it
    /// had none.
    pub fn clear_goal(&self, conversation: &Conversation) -> Result<bool, EngineError> {
        if conversation.is_busy() {
            return Err(EngineError::Busy);
        }
        let mut st = conversation.lock();
        st.writable()?;
        Ok(st.clear_goal())
    }

    fn start(&self, conversation: &Conversation, job: Job) -> (Receiver<Event>, CancelHandle) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let (ops_tx, ops_rx) = crossbeam_channel::unbounded();
        let token = CancelToken::new();
        let handle = CancelHandle {
            token: token.clone(),
            ops: Arc::new(ops_tx),
        };
        if let Ok(mut turns) = self.turns.lock() {
            turns.retain(|_, (ops, _)| ops.strong_count() > 0);
            turns.insert(
                conversation.id(),
                (Arc::downgrade(&handle.ops), token.clone()),
            );
        }
        let emitter = Emitter::new(tx, ops_rx, self.waker.clone(), token.clone());
        let agent = Arc::clone(&self.agent);
        let conv = conversation.clone();
        let memory = match job {
            Job::Turn(_) | Job::Goal(_) => self.memory.as_ref().map(MemoryWorker::events),
            Job::Compact => None,
        };
        let spawned = std::thread::Builder::new()
            .name("koi-turn".into())
            .spawn(move || {
                if let Some(m) = &memory {
                    let _ = m.send(worker::Event::TurnStarted(conv.id()));
                }
                turn_thread(&agent, &conv, job, emitter, &token);
                if let Some(m) = &memory {
                    let _ = m.send(worker::Event::TurnEnded(crate::agent::Snapshot::of(&conv)));
                }
            });
        if let Err(e) = spawned {
            // The closure (and its emitter) is gone; report through a fresh channel.
            let (tx, rx) = crossbeam_channel::bounded(1);
            let _ = tx.send(Event::from(EngineError::Config(format!(
                "cannot start a turn thread: {e}"
            ))));
            return (rx, handle);
        }
        (rx, handle)
    }
}

pub(crate) mod builder;
mod memory;

/// What a turn thread does.
enum Job {
    /// A turn: the user's input, or `None` to continue what the log left.
    Turn(Option<UserInput>),
    /// A compaction the user asked for.
    Compact,
    /// Goal mode: turns until the goal completes, blocks or pauses.
    Goal(GoalStart),
}

fn turn_thread(agent: &Agent, conv: &Conversation, job: Job, em: Emitter, cancel: &CancelToken) {
    if let Err(e) = conv.lock().writable() {
        return em.send(Event::from(e));
    }
    loop {
        match conv.try_begin() {
            Ok(()) => break,
            // The previous turn's title request is still out: wait for it,
            // so requests reach the provider in a fixed order.
            Err(true) if !cancel.is_cancelled() => std::thread::sleep(CANCEL_POLL),
            Err(true) => return em.send(Event::from(EngineError::Cancelled)),
            Err(false) => return em.send(Event::from(EngineError::Busy)),
        }
    }
    // A panic below (a bug) must still end the stream with one Err and
    // leave the conversation free, or every later submit would be Busy.
    let ran = catch_unwind(AssertUnwindSafe(|| match job {
        Job::Turn(input) => {
            // A continuation of a conversation never written has nothing
            // to continue and no file to create.
            if input.is_some() {
                wait_if_new(agent, conv, &em, cancel);
                conv.ensure_log(origin(agent));
            }
            agent.run_turn(conv, input, &em, cancel)
        }
        Job::Compact => {
            agent.compact_now(conv, &em, cancel);
            false
        }
        Job::Goal(start) => {
            if matches!(start, GoalStart::New(_)) {
                wait_if_new(agent, conv, &em, cancel);
                conv.ensure_log(origin(agent));
            }
            let result = run_goal(agent, conv, start, &em, cancel);
            conv.end();
            em.send(match result {
                Ok(()) => Event::Done,
                Err(e) => Event::from(e),
            });
            false
        }
    }));
    let want_title = ran.unwrap_or_else(|payload| {
        conv.end();
        if !em.ended() {
            em.send(Event::from(EngineError::Internal(panic_message(&*payload))));
        }
        false
    });
    // Close the stream first: a consumer reading to the end is not kept
    // waiting for the title.
    drop(em);
    if want_title {
        let _ = catch_unwind(AssertUnwindSafe(|| agent.make_title(conv)));
        conv.end();
    }
}

/// Before a new conversation's tool list is fixed: a bounded wait for MCP
/// servers still starting.
fn wait_if_new(agent: &Agent, conv: &Conversation, em: &Emitter, cancel: &CancelToken) {
    let fresh = {
        let st = conv.lock();
        st.messages.is_empty() && st.context.tools.is_empty()
    };
    if fresh {
        crate::mcp_tools::wait_for_servers(agent.mcp.as_ref(), em, cancel);
    }
}

/// What a new conversation's first records say about where it runs.
fn origin(agent: &Agent) -> Origin {
    Origin {
        provider: agent.client.config().provider.as_str().to_string(),
        model: agent.client.model(),
        context: ConversationContext {
            workspace: agent
                .runner
                .registry()
                .workspace()
                .root()
                .to_string_lossy()
                .into_owned(),
            tools: agent.specs.iter().map(|s| s.name.to_string()).collect(),
            mcp_tools: crate::mcp_tools::declared_now(agent.mcp.as_ref()),
            ..Default::default()
        },
    }
}

mod sessions;
