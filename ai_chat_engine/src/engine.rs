//! The engine: built once from config and a tool registry, it runs each
//! submitted turn on its own thread and streams [`StreamMsg`]s back.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ai_tools::registry::panic_message;
use ai_tools::{CancelToken, Mode, Registry, ToolSpec};
use crossbeam_channel::{Receiver, Sender};

use crate::budgets::{CANCEL_POLL, DEFAULT_CONTEXT_BUDGET_BYTES, MAX_MODEL_NAME};
use crate::config::{AiConfig, ProviderKind, ResolvedConfig};
use crate::conversation::{ConvState, Conversation};
use crate::message::UserInput;
use crate::prompt::{system_prompt, EnvironmentFacts};
use crate::session_log::{self, SessionInfo, SessionLog};
use crate::stream_msg::{EngineError, StreamMsg};
use crate::transport::Transport;

/// Called after every message a turn sends (e.g. to wake a GUI event loop).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Front-end choices that are not part of the user's config file.
#[derive(Clone)]
pub struct EngineOptions {
    /// Approval mode for this engine (overrides `[ai] approval_mode`).
    pub mode: Option<Mode>,
    /// Approval wait (overrides `[ai] approval_timeout_secs`).
    pub approval_timeout: Option<Duration>,
    /// Where sessions live (default: the platform data dir + `koi`).
    pub data_dir: Option<PathBuf>,
    /// Where SOUL/STYLE/SKILL/MEMORY.md are read (default: koi's config dir).
    pub config_dir: Option<PathBuf>,
    /// Write session logs at all.
    pub persist: bool,
    /// Ask `fast_model` for a title after a conversation's first turn.
    pub generate_titles: bool,
    /// Request size (bytes) at which older history is summarised.
    pub context_budget_bytes: usize,
    /// With nothing configured, probe loopback ports for a local server.
    pub probe_local: bool,
    /// Called after each message is sent.
    pub waker: Option<Waker>,
    /// Pause between the demo provider's words (0 in tests).
    pub demo_word_delay: Duration,
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
            context_budget_bytes: DEFAULT_CONTEXT_BUDGET_BYTES,
            probe_local: true,
            waker: None,
            // A visible but quick typing effect for the scripted demo.
            demo_word_delay: Duration::from_millis(12),
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
            .field("context_budget_bytes", &self.context_budget_bytes)
            .finish_non_exhaustive()
    }
}

/// Cancels one turn: streaming stops, running tools are told to stop, and
/// the turn ends with `Err(Cancelled)` within ~100 ms.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    token: CancelToken,
}

impl CancelHandle {
    /// Requests cancellation (idempotent).
    pub fn cancel(&self) {
        self.token.cancel();
    }

    /// Whether cancel was requested.
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

/// Shared by the engine and its turn threads.
pub(crate) struct Core {
    pub cfg: ResolvedConfig,
    pub registry: Arc<Registry>,
    pub system_prompt: String,
    pub tools: Vec<ToolSpec>,
    pub transport: Transport,
    pub mode: Mutex<Mode>,
    /// The model in use; starts as `cfg.model`, changed by `set_model`.
    pub model: Mutex<String>,
    pub approval_timeout: Duration,
    pub opts: EngineOptions,
}

impl Core {
    pub fn mode(&self) -> Mode {
        *self.mode.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn model(&self) -> String {
        self.model.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn sessions_dir(&self) -> Option<PathBuf> {
        if !self.opts.persist {
            return None;
        }
        match &self.opts.data_dir {
            Some(d) => Some(session_log::sessions_dir(d)),
            None => session_log::default_sessions_dir(),
        }
    }
}

/// Sends a turn's messages, waking the front end after each.
pub(crate) struct Emitter {
    tx: Sender<StreamMsg>,
    waker: Option<Waker>,
    cancel: CancelToken,
    /// The turn's terminal message (Done or Err) was sent.
    ended: AtomicBool,
}

impl Emitter {
    /// Whether the turn's terminal message was sent.
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    pub fn send(&self, msg: StreamMsg) {
        if msg.is_terminal() {
            self.ended.store(true, Ordering::SeqCst);
        }
        if self.tx.send(msg).is_err() {
            // Nobody is listening any more: stop working for no one.
            self.cancel.cancel();
        }
        if let Some(w) = &self.waker {
            w();
        }
    }
}

/// The chat engine. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct Engine {
    core: Arc<Core>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.core.cfg)
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
        let cfg = if options.probe_local {
            config.resolve()
        } else {
            config.resolve_with(&|k| std::env::var(k).ok(), false)
        };
        Self::with_resolved(cfg, registry, options)
    }

    /// Builds an engine from already resolved values.
    pub fn with_resolved(
        cfg: ResolvedConfig,
        registry: Arc<Registry>,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        let system_prompt = system_prompt(options.config_dir.as_deref());
        let tools = registry.specs();
        let mode = options.mode.unwrap_or(cfg.approval_mode);
        let approval_timeout = options.approval_timeout.unwrap_or(cfg.approval_timeout);
        let model = cfg.model.clone();
        let core = Core {
            transport: Transport::new()?,
            cfg,
            registry,
            system_prompt,
            tools,
            mode: Mutex::new(mode),
            model: Mutex::new(model),
            approval_timeout,
            opts: options,
        };
        Ok(Engine {
            core: Arc::new(core),
        })
    }

    /// The configuration the engine started with (and where each value
    /// came from). The model in use is [`Engine::model`].
    pub fn config(&self) -> &ResolvedConfig {
        &self.core.cfg
    }

    /// True when running the offline demo.
    pub fn is_demo(&self) -> bool {
        self.core.cfg.provider == ProviderKind::Demo
    }

    /// The static system prompt every request starts with.
    pub fn system_prompt(&self) -> &str {
        &self.core.system_prompt
    }

    /// Bytes the next request for `conversation` would send (for a context
    /// meter); summarising starts past `EngineOptions::context_budget_bytes`.
    pub fn request_bytes(&self, conversation: &Conversation) -> usize {
        crate::agent_loop::request_bytes(&self.core, &conversation.messages())
    }

    /// The approval mode in force.
    pub fn mode(&self) -> Mode {
        self.core.mode()
    }

    /// Changes the approval mode for turns that start afterwards.
    pub fn set_mode(&self, mode: Mode) {
        *self.core.mode.lock().unwrap_or_else(|p| p.into_inner()) = mode;
    }

    /// The model turns are sent to.
    pub fn model(&self) -> String {
        self.core.model()
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
        *self.core.model.lock().unwrap_or_else(|p| p.into_inner()) = model.to_string();
        Ok(())
    }

    /// The directory tools work in (the registry's workspace root).
    pub fn workspace(&self) -> &std::path::Path {
        self.core.registry.workspace().root()
    }

    /// A new, empty conversation in the registry's workspace. Its log file
    /// is created by its first turn.
    pub fn new_conversation(&self) -> Conversation {
        let cwd = self.core.registry.workspace().root().to_path_buf();
        Conversation::from_state(ConvState::new(
            crate::time::new_session_id(),
            &cwd,
            self.core.sessions_dir(),
        ))
    }

    /// Every saved session, most recent first.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        self.core
            .sessions_dir()
            .map(|d| session_log::list_sessions(&d))
            .unwrap_or_default()
    }

    /// Loads a saved conversation to continue it.
    pub fn load_conversation(&self, id: &str) -> Result<Conversation, EngineError> {
        let dir = self
            .core
            .sessions_dir()
            .ok_or_else(|| EngineError::Session("sessions are not saved in this engine".into()))?;
        if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
            return Err(EngineError::Session(format!("bad session id {id:?}")));
        }
        let path = dir.join(format!("{id}.jsonl"));
        let loaded = session_log::read_log(&path)
            .map_err(|e| EngineError::Session(format!("{}: {e}", path.display())))?;
        let replayed = session_log::replay(&loaded.records);
        let cwd = match &replayed.meta {
            Some(session_log::Entry::Meta { cwd, .. }) => PathBuf::from(cwd),
            _ => self.core.registry.workspace().root().to_path_buf(),
        };
        let log = SessionLog::open(&path, loaded.records.len())
            .map_err(|e| EngineError::Session(format!("{}: {e}", path.display())))?;
        let mut st = ConvState::new(id.to_string(), &cwd, Some(dir));
        st.env_facts = match replayed.messages.first() {
            Some(crate::message::Message::Environment(text)) => {
                Some(EnvironmentFacts::parse_changeable(text, &cwd))
            }
            _ => None,
        };
        st.messages = replayed.messages;
        st.title = replayed.title;
        st.uncertain = replayed.uncertain;
        st.log = Some(log);
        Ok(Conversation::from_state(st))
    }

    /// The latest conversation started in this engine's workspace (for `k`).
    pub fn latest_conversation(&self) -> Option<Conversation> {
        let dir = self.core.sessions_dir()?;
        let info = session_log::latest_for_cwd(&dir, self.core.registry.workspace().root())?;
        self.load_conversation(&info.id).ok()
    }

    /// Starts a turn on its own thread. Returns the stream of messages
    /// (ending with exactly one `Done` or `Err`) and a cancel handle.
    pub fn submit(
        &self,
        conversation: &Conversation,
        input: UserInput,
    ) -> (Receiver<StreamMsg>, CancelHandle) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let token = CancelToken::new();
        let handle = CancelHandle {
            token: token.clone(),
        };
        let emitter = Emitter {
            tx,
            waker: self.core.opts.waker.clone(),
            cancel: token.clone(),
            ended: AtomicBool::new(false),
        };
        let core = Arc::clone(&self.core);
        let conv = conversation.clone();
        let spawned = std::thread::Builder::new()
            .name("koi-turn".into())
            .spawn(move || turn_thread(&core, &conv, input, emitter, &token));
        if let Err(e) = spawned {
            // The closure (and its emitter) is gone; report through a fresh channel.
            let (tx, rx) = crossbeam_channel::bounded(1);
            let _ = tx.send(StreamMsg::Err(EngineError::Config(format!(
                "cannot start a turn thread: {e}"
            ))));
            return (rx, handle);
        }
        (rx, handle)
    }
}

fn turn_thread(
    core: &Arc<Core>,
    conv: &Conversation,
    input: UserInput,
    em: Emitter,
    cancel: &CancelToken,
) {
    loop {
        match conv.try_begin() {
            Ok(()) => break,
            // The previous turn's title request is still out: wait for it,
            // so requests reach the provider in a fixed order.
            Err(true) if !cancel.is_cancelled() => std::thread::sleep(CANCEL_POLL),
            Err(true) => return em.send(StreamMsg::Err(EngineError::Cancelled)),
            Err(false) => return em.send(StreamMsg::Err(EngineError::Busy)),
        }
    }
    // A panic below (a bug) must still end the stream with one Err and
    // leave the conversation free, or every later submit would be Busy.
    let ran = catch_unwind(AssertUnwindSafe(|| {
        ensure_log(core, conv);
        crate::agent_loop::run_turn(core, conv, input, &em, cancel)
    }));
    let want_title = ran.unwrap_or_else(|payload| {
        conv.end();
        if !em.ended() {
            em.send(StreamMsg::Err(EngineError::Internal(panic_message(
                &*payload,
            ))));
        }
        false
    });
    // Close the stream first: a consumer reading to the end is not kept
    // waiting for the title.
    drop(em);
    if want_title {
        let _ = catch_unwind(AssertUnwindSafe(|| {
            crate::agent_loop::make_title(core, conv)
        }));
        conv.end();
    }
}

/// Creates the session file on a conversation's first turn.
fn ensure_log(core: &Core, conv: &Conversation) {
    let mut st = conv.lock();
    if st.log.is_some() || st.log_error.is_some() {
        return;
    }
    let Some(dir) = st.persist_dir.clone() else {
        return;
    };
    let meta = session_log::Entry::Meta {
        session: st.id.clone(),
        cwd: st.cwd.to_string_lossy().into_owned(),
        provider: core.cfg.provider.as_str().to_string(),
        model: core.model(),
        format: session_log::LOG_FORMAT,
    };
    match SessionLog::create(&dir, &st.id, meta) {
        Ok(log) => st.log = Some(log),
        Err(e) => st.log_error = Some(format!("{}: {e}", dir.display())),
    }
}
