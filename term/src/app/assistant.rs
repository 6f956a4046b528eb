//! The overlay's link to the chat engine: builds the engine on first use,
//! runs one turn at a time, and holds the reply channel of a pending
//! approval so only an explicit decision from the panel can answer it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ai_chat_engine::store::session_list;
use ai_chat_engine::{
    ApprovalReply, Attachment, CancelHandle, Conversation, Engine, EngineBuilder, EngineError,
    Event, Front, GoalSpec, Image, Step, TranscriptItem, UncertainCall, UncertainDecision,
    UserInput,
};
use ai_tools::Mode;
use crossbeam_channel::Receiver;

/// Cancel takes effect within 100 ms; waiting a little longer than that
/// for an interrupted turn keeps the UI responsive even if it is slow.
const INTERRUPT_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// koi's parsed `[ai]` and `[mcp]` tables as its config loader last read
/// them (the live reload keeps them current, a bad file keeps the last
/// good ones): every panel and the suggester build their engines from
/// these, so the file is not read again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AiTables {
    /// `[ai]`.
    pub ai: Option<toml::Table>,
    /// `[mcp]`.
    pub mcp: Option<toml::Table>,
}

impl AiTables {
    /// The tables of a loaded config.
    pub fn of(config: &crate::config::Config) -> AiTables {
        AiTables {
            ai: config.ai.clone(),
            mcp: config.mcp.clone(),
        }
    }
}

/// [`AiTables`] shared between the app (which reloads them) and the
/// engines' builders.
pub type SharedAiTables = Arc<parking_lot::RwLock<AiTables>>;

/// The engine builder for `front`: from the tables koi's config loader
/// parsed when there are some, else from the file at `path` (tests, and a
/// panel made outside the app).
pub fn engine_builder(
    path: Option<&Path>,
    tables: Option<&SharedAiTables>,
    front: Front,
) -> Result<EngineBuilder, String> {
    match tables {
        Some(tables) => {
            let t = tables.read();
            EngineBuilder::from_parsed(
                path.map(Path::to_path_buf),
                t.ai.clone().map(toml::Value::Table),
                t.mcp.clone().map(toml::Value::Table),
                front,
            )
        }
        None => EngineBuilder::from_config(path, front),
    }
    .map_err(|e| e.to_string())
}

/// A stream the overlay starts besides a turn.
pub enum Job {
    /// `/compact`.
    Compact,
    /// `/goal TEXT [--turns N] [--tokens N] [--minutes N] --check COMMAND`.
    Goal(GoalSpec),
    /// `/goal resume`.
    GoalResume,
}

struct Turn {
    rx: Receiver<Event>,
    cancel: CancelHandle,
}

pub struct Assistant {
    engine: Option<Engine>,
    conversation: Option<Conversation>,
    turn: Option<Turn>,
    /// The call whose approval the panel shows, answered through the
    /// turn's handle.
    approval: Option<String>,
    /// An interrupted call shown in the approval row, waiting for the
    /// user to choose rerun (allow) or abandon (deny).
    uncertain: Option<UncertainCall>,
    waker: Arc<dyn Fn() + Send + Sync>,
    config_path: Option<PathBuf>,
    /// The config's `[ai]`/`[mcp]` as the app parsed them (`None`: read
    /// `config_path`).
    tables: Option<SharedAiTables>,
    /// Where sessions live (`None`: the platform data dir).
    data_dir: Option<PathBuf>,
    /// The mode to go back to when the conversation whose approval said
    /// "allow edits for this conversation" (`a`) ends.
    granted_from: Option<Mode>,
    /// The mode the user chose with /mode, kept when the engine is rebuilt
    /// for another workspace.
    chosen_mode: Option<Mode>,
    /// The directory the user named with /cd, for the conversations that
    /// follow (until /new).
    named_dir: Option<PathBuf>,
    /// Images `/image` attached to the next message.
    images: Vec<Image>,
}

/// A directory too broad to let the assistant write in or run unproven
/// commands from: the home directory or the root. Reads still work there.
/// What `/memory` comes to in the panel.
pub enum MemoryAnswer {
    /// Text to show.
    Show(String),
    /// A memory file to open in the user's editor.
    Edit(PathBuf),
}

pub fn is_broad(dir: &Path) -> bool {
    dir.parent().is_none() || dirs::home_dir().is_some_and(|home| home == dir)
}

/// The approval row for an interrupted call: tool, full arguments (secrets
/// masked) and when it started.
fn uncertain_row(engine: &Engine, u: &UncertainCall) -> (String, String) {
    let summary = format!(
        "{} was interrupted and may have partly run · Enter: run it again · Esc: abandon it",
        u.call.name
    );
    let detail = format!(
        "call {} started {}; nothing runs again until you choose.\n{}",
        u.call.id,
        u.started_at,
        engine.masked_arguments(&u.call.arguments)
    );
    (summary, detail)
}

impl Assistant {
    pub fn new(config_path: Option<PathBuf>, waker: Arc<dyn Fn() + Send + Sync>) -> Self {
        Self {
            engine: None,
            conversation: None,
            turn: None,
            approval: None,
            uncertain: None,
            waker,
            config_path,
            tables: None,
            data_dir: None,
            granted_from: None,
            chosen_mode: None,
            named_dir: None,
            images: Vec::new(),
        }
    }

    /// Attaches the image at `path` (relative to `workspace`) to the next
    /// message; the line to show, or why not.
    pub fn attach_image(&mut self, path: &str, workspace: &Path) -> Result<String, String> {
        let image = Image::load(&workspace.join(path)).map_err(|e| e.to_string())?;
        Ok(self.attach(image))
    }

    /// Attaches a PNG pasted from the clipboard to the next message.
    pub fn attach_png(&mut self, png: &[u8]) -> Result<String, String> {
        let image = Image::from_bytes("pasted.png", png).map_err(|e| e.to_string())?;
        Ok(self.attach(image))
    }

    /// Keeps `image` for the next message; says so in one line.
    fn attach(&mut self, image: Image) -> String {
        let line = format!("attached {} to the next message", image.describe());
        self.images.push(image);
        line
    }

    /// What waits to go with the next message (for `/image` alone).
    pub fn pending_images(&self) -> String {
        if self.images.is_empty() {
            return "no image attached; /image FILE attaches one to the next message".into();
        }
        let names: Vec<String> = self.images.iter().map(Image::describe).collect();
        format!("attached to the next message: {}", names.join(", "))
    }

    /// Builds engines from the app's parsed config instead of the file.
    pub fn with_tables(mut self, tables: SharedAiTables) -> Self {
        self.tables = Some(tables);
        self
    }

    /// Keeps sessions under `data_dir` instead of the platform data dir.
    #[cfg(test)]
    fn with_data_dir(mut self, data_dir: &Path) -> Self {
        self.data_dir = Some(data_dir.to_path_buf());
        self
    }

    pub fn is_busy(&self) -> bool {
        self.turn.is_some()
    }

    /// "model · mode" for the panel's title, once the engine exists.
    pub fn describe(&self) -> Option<String> {
        let engine = self.engine.as_ref()?;
        let demo = if engine.is_demo() { " (demo)" } else { "" };
        Some(format!("{}{demo} · {}", engine.model(), engine.mode()))
    }

    /// The sandbox label (`sandbox: landlock v7`, `sandbox:
    /// off`, `sandbox unavailable: …`), once the engine exists.
    pub fn sandbox_label(&self) -> Option<String> {
        let engine = self.engine.as_ref()?;
        Some(engine.sandbox_status().to_string())
    }

    /// The current conversation's tokens, cache hits and cost (`/cost`).
    pub fn usage_report(&self) -> String {
        match (&self.engine, &self.conversation) {
            (Some(engine), Some(conv)) => conv.usage_report(&engine.config().prices).to_string(),
            _ => ai_chat_engine::UsageReport::default().to_string(),
        }
    }

    /// Where the assistant works for a pane in `cwd`: the directory named
    /// with /cd, else the pane's.
    pub fn workspace_for(&self, cwd: &Path) -> PathBuf {
        self.named_dir.clone().unwrap_or_else(|| cwd.to_path_buf())
    }

    /// /cd DIR: the next conversation works in `dir` (relative to `from`;
    /// `~` is the home directory). Returns the directory.
    pub fn name_dir(&mut self, dir: &str, from: &Path) -> Result<PathBuf, String> {
        let expanded = match dir.strip_prefix('~') {
            Some(rest) => dirs::home_dir()
                .ok_or("no home directory")?
                .join(rest.trim_start_matches('/')),
            None => from.join(dir),
        };
        let dir = expanded
            .canonicalize()
            .map_err(|e| format!("{}: {e}", expanded.display()))?;
        if !dir.is_dir() {
            return Err(format!("{} is not a directory", dir.display()));
        }
        self.new_conversation();
        self.named_dir = Some(dir.clone());
        Ok(dir)
    }

    /// The engine for `workspace`. A conversation keeps the workspace it
    /// started in; a new one starts in `workspace`, so the panel follows
    /// the focused pane from one conversation to the next.
    /// When the panel opens: builds the engine now if MCP servers are
    /// configured, which starts them in the background, so they are ready
    /// by the time the user has typed a question. A terminal whose panel
    /// never opens starts none. An error waits for the first submit,
    /// which reports it.
    pub fn warm_up(&mut self, workspace: &Path) {
        if self.engine.is_some() {
            return;
        }
        let Ok(builder) = engine_builder(
            self.config_path.as_deref(),
            self.tables.as_ref(),
            Front::Koi,
        ) else {
            return;
        };
        if builder.has_mcp_servers() {
            let _ = self.engine_from(workspace, Some(builder));
        }
    }

    fn engine(&mut self, workspace: &Path) -> Result<&Engine, String> {
        self.engine_from(workspace, None)
    }

    /// [`Assistant::engine`], from `builder` when the config was just read.
    fn engine_from(
        &mut self,
        workspace: &Path,
        builder: Option<EngineBuilder>,
    ) -> Result<&Engine, String> {
        let moved = self.engine.as_ref().is_some_and(|e| {
            let wanted = workspace
                .canonicalize()
                .unwrap_or_else(|_| workspace.to_path_buf());
            e.workspace() != wanted
        });
        if moved && self.conversation.is_none() && self.turn.is_none() {
            self.end_grant();
            self.engine = None;
        }
        if self.engine.is_none() {
            let builder = match builder {
                Some(b) => b,
                None => engine_builder(
                    self.config_path.as_deref(),
                    self.tables.as_ref(),
                    Front::Koi,
                )?,
            };
            let engine = builder
                .workspace(workspace)
                .data_dir(self.data_dir.clone())
                .waker(self.waker.clone())
                .build()
                .map_err(|e| e.to_string())?;
            if is_broad(engine.workspace()) {
                // Reads only, until the user names a directory (/cd).
                engine.set_mode(Mode::Plan);
            } else if let Some(mode) = self.chosen_mode {
                engine.set_mode(mode);
            }
            self.engine = Some(engine);
        }
        self.engine.as_ref().ok_or_else(|| "no engine".to_owned())
    }

    /// Cancel the running turn and wait (briefly) for its thread to end, so
    /// the conversation is free for the next one.
    fn interrupt(&mut self) {
        self.cancel();
        if let Some(turn) = self.turn.take() {
            let deadline = std::time::Instant::now() + INTERRUPT_WAIT;
            while let Ok(msg) = turn.rx.recv_deadline(deadline) {
                if msg.is_terminal() {
                    break;
                }
            }
        }
    }

    /// Start a turn, interrupting the running one.
    pub fn submit(
        &mut self,
        text: String,
        attachments: Vec<Attachment>,
        terminal_size: (u16, u16),
        workspace: &Path,
    ) -> Result<(), String> {
        self.interrupt();
        let images = std::mem::take(&mut self.images);
        let previous = self.conversation.take();
        let engine = self.engine(workspace)?;
        let conversation = previous.unwrap_or_else(|| engine.new_conversation());
        let input = UserInput {
            text,
            attachments,
            images,
            terminal_size: Some(terminal_size),
        };
        let (rx, cancel) = engine.submit(&conversation, input);
        self.conversation = Some(conversation);
        self.turn = Some(Turn { rx, cancel });
        Ok(())
    }

    /// Starts `job` on the current conversation (none yet: nothing to do).
    pub fn start_job(&mut self, job: Job, workspace: &Path) -> Result<(), String> {
        if self.turn.is_some() {
            return Err("wait for the running turn to finish (Esc cancels it)".into());
        }
        let conversation = match self.conversation.take() {
            Some(c) => c,
            None if matches!(job, Job::Goal(_)) => self.engine(workspace)?.new_conversation(),
            None => return Err("no conversation yet".into()),
        };
        let engine = self.engine(workspace)?;
        let (rx, cancel) = match job {
            Job::Compact => engine.compact(&conversation),
            Job::Goal(spec) => engine.start_goal(&conversation, spec),
            Job::GoalResume => engine.continue_goal(&conversation),
        };
        self.conversation = Some(conversation);
        self.turn = Some(Turn { rx, cancel });
        Ok(())
    }

    /// `/goal`: the goal and where it stands.
    pub fn goal_text(&self) -> String {
        match self.conversation.as_ref().and_then(Conversation::goal) {
            Some(g) => g.to_string(),
            None => "no goal; set one with /goal TEXT --check COMMAND".into(),
        }
    }

    /// `/goal clear`: ends the goal.
    pub fn clear_goal(&mut self) -> Result<String, String> {
        let (Some(engine), Some(conv)) = (&self.engine, &self.conversation) else {
            return Ok("no goal to clear".into());
        };
        match engine.clear_goal(conv) {
            Ok(true) => Ok("goal cleared".into()),
            Ok(false) => Ok("no goal to clear".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Cancel the running turn; its stream still ends with an `Error` of kind `Cancelled`.
    pub fn cancel(&mut self) {
        if let Some(turn) = &self.turn {
            turn.cancel.cancel();
        }
        // An unanswered approval is a denial.
        if let (Some(id), Some(turn)) = (self.approval.take(), &self.turn) {
            turn.cancel.approve(&id, ApprovalReply::Deny);
        }
    }

    /// Messages that arrived since the last call. Keeps the reply channel of
    /// an approval request; the turn is over after `Done` or `Error`.
    pub fn drain(&mut self) -> Vec<Event> {
        let Some(turn) = &self.turn else {
            return Vec::new();
        };
        let messages: Vec<Event> = turn.rx.try_iter().collect();
        for msg in &messages {
            match msg {
                Event::ApprovalAsked { id: Some(id), .. } => self.approval = Some(id.clone()),
                m if m.is_terminal() => {
                    self.turn = None;
                    self.approval = None;
                }
                _ => {}
            }
        }
        messages
    }

    /// Answer the pending approval. `for_conversation` also lets edits run
    /// unasked for the rest of the conversation (accept-edits), where the
    /// current mode is the stricter default.
    pub fn decide(&mut self, approve: bool, for_conversation: bool) {
        if let Some(u) = self.uncertain.take() {
            let decision = if approve {
                UncertainDecision::Rerun
            } else {
                UncertainDecision::Abandon
            };
            if let Some(c) = &self.conversation {
                // The call was listed as undecided a moment ago; a failure
                // here leaves it undecided, and the next row asks again.
                let _ = c.decide_uncertain(&u.call.id, decision);
            }
            return;
        }
        if let (Some(id), Some(turn)) = (self.approval.take(), &self.turn) {
            turn.cancel.approve(
                &id,
                if approve {
                    ApprovalReply::Approve
                } else {
                    ApprovalReply::Deny
                },
            );
        }
        if approve && for_conversation {
            if let Some(engine) = &self.engine {
                if engine.mode() == Mode::Default {
                    engine.set_mode(Mode::AcceptEdits);
                    self.granted_from = Some(Mode::Default);
                }
            }
        }
    }

    /// `/memory` and `/memory edit`: what to show, or the file to open.
    pub fn memory(
        &mut self,
        cmd: &ai_chat_engine::MemoryCommand,
        workspace: &Path,
    ) -> Result<MemoryAnswer, String> {
        use ai_chat_engine::memory::{self, store};
        use ai_chat_engine::MemoryCommand;
        let engine = self.engine(workspace)?;
        let Some(paths) = engine.memory_paths() else {
            return Ok(MemoryAnswer::Show(memory::MEMORY_OFF.to_owned()));
        };
        match cmd {
            MemoryCommand::Show => Ok(MemoryAnswer::Show(memory::show(&paths, 20))),
            MemoryCommand::Edit(scope) => store::edit_target(&paths, *scope)
                .map(MemoryAnswer::Edit)
                .map_err(|e| e.to_string()),
            MemoryCommand::Usage(arg) => Err(format!(
                "/memory {arg}? use /memory, /memory edit or /memory edit global"
            )),
        }
    }

    /// The conversation changes: an "allow edits" granted to the old one
    /// does not carry over.
    fn end_grant(&mut self) {
        if let (Some(mode), Some(engine)) = (self.granted_from.take(), &self.engine) {
            engine.set_mode(mode);
        }
    }

    /// Start a fresh conversation; the memory curator reads the old one.
    pub fn new_conversation(&mut self) {
        self.interrupt();
        self.end_grant();
        self.named_dir = None;
        if let (Some(engine), Some(old)) = (&self.engine, self.conversation.take()) {
            // The outcome shows in `/memory`; nothing here waits for it.
            let _ = engine.close_conversation(&old);
        }
        self.uncertain = None;
    }

    /// The next interrupted call to decide, as an approval row; `None`
    /// when every one is decided.
    pub fn next_uncertain(&mut self) -> Option<(String, String)> {
        if self.turn.is_some() || self.is_read_only() {
            return None;
        }
        let engine = self.engine.as_ref()?;
        let next = self
            .conversation
            .as_ref()?
            .uncertain_calls()
            .into_iter()
            .next()?;
        let row = uncertain_row(engine, &next);
        self.uncertain = Some(next);
        Some(row)
    }

    /// Continues what an interruption left unfinished (once every
    /// interrupted call is decided). True when a turn started.
    pub fn continue_interrupted(&mut self) -> bool {
        if self.turn.is_some() || self.uncertain.is_some() || self.is_read_only() {
            return false;
        }
        let (Some(engine), Some(conv)) = (&self.engine, &self.conversation) else {
            return false;
        };
        if !conv.uncertain_calls().is_empty() || conv.next_step() == Step::Idle {
            return false;
        }
        let (rx, cancel) = engine.resume(conv);
        self.turn = Some(Turn { rx, cancel });
        true
    }

    /// Continues a copy of saved conversation `id` (the current one when
    /// `None`) under a new id; returns its transcript and notes.
    pub fn fork(
        &mut self,
        id: Option<&str>,
        workspace: &Path,
    ) -> Result<(String, Vec<TranscriptItem>, Vec<String>), String> {
        let current = self.conversation.as_ref().map(Conversation::id);
        let Some(id) = id.map(str::to_owned).or(current) else {
            return Err("nothing to fork yet: /fork ID names a saved conversation".into());
        };
        self.interrupt();
        self.end_grant();
        let engine = self.engine(workspace)?;
        let conversation = engine
            .fork_conversation(&id)
            .map_err(|e| format!("cannot fork {id}: {e}"))?;
        let transcript = conversation.transcript();
        let notes = conversation.resume_notes(engine.workspace());
        let new_id = conversation.id();
        self.conversation = Some(conversation);
        self.uncertain = None;
        Ok((new_id, transcript, notes))
    }

    pub fn set_mode(&mut self, mode: Mode, workspace: &Path) -> Result<(), String> {
        // The user's own choice replaces any grant.
        self.granted_from = None;
        let engine = self.engine(workspace)?;
        if is_broad(engine.workspace()) && mode != Mode::Plan {
            return Err(format!(
                "{} is too broad to work in: /cd DIR names the directory first",
                engine.workspace().display()
            ));
        }
        engine.set_mode(mode);
        self.chosen_mode = Some(mode);
        Ok(())
    }

    /// Sends the following turns to `model`; returns the name in use.
    pub fn set_model(&mut self, model: &str, workspace: &Path) -> Result<String, String> {
        let engine = self.engine(workspace)?;
        engine.set_model(model).map_err(|e| e.to_string())?;
        Ok(engine.model())
    }

    /// The saved conversations, as a table (this workspace's marked).
    pub fn sessions(&mut self, workspace: &Path) -> Result<String, String> {
        let sessions = self.engine(workspace)?.sessions();
        Ok(session_list::table(
            &sessions,
            &workspace.to_string_lossy(),
            session_list::DEFAULT_LIMIT,
            "k sessions --all",
            "/resume ID",
        ))
    }

    /// Continues saved conversation `id` (interrupting the running turn);
    /// returns its transcript for the panel and notes for the user.
    pub fn resume(
        &mut self,
        id: &str,
        workspace: &Path,
    ) -> Result<(Vec<TranscriptItem>, Vec<String>), String> {
        self.interrupt();
        self.end_grant();
        // This panel's own hold on it must not count as someone else's.
        if self.conversation.as_ref().is_some_and(|c| c.id() == id) {
            self.conversation = None;
        }
        let engine = self.engine(workspace)?;
        let (conversation, mut notes) = match engine.load_conversation(id) {
            Ok(c) => (c, Vec::new()),
            // Someone else writes it: show it, read-only, and say who.
            Err(locked @ EngineError::Locked { .. }) => {
                let c = engine
                    .open_read_only(id)
                    .map_err(|e| format!("cannot resume {id}: {e}"))?;
                (c, vec![format!("read-only here: {locked}")])
            }
            Err(e) => return Err(format!("cannot resume {id}: {e}")),
        };
        let transcript = conversation.transcript();
        notes.extend(conversation.resume_notes(engine.workspace()));
        self.conversation = Some(conversation);
        self.uncertain = None;
        Ok((transcript, notes))
    }

    /// True when the current conversation is open read-only (someone
    /// else writes it).
    pub fn is_read_only(&self) -> bool {
        self.conversation
            .as_ref()
            .is_some_and(Conversation::is_read_only)
    }
}

impl Drop for Assistant {
    fn drop(&mut self) {
        self.cancel();
    }
}

#[cfg(test)]
#[path = "assistant_tests.rs"]
mod tests;
