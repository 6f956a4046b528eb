//! One ACP session: one koi conversation, with its own engine working in
//! the session's directory, its mode, its standing approvals and at most
//! one running turn.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use ai_chat_engine::{
    AttachmentKind, CancelHandle, Conversation, Engine, GoalCommand, GoalSpec, SlashCommand,
    UserInput,
};
use ai_tools::Mode;
use serde_json::Value;

use super::rpc::{Peer, RpcError, SERVER_BUSY};
use super::turn::{Always, Turn};
use super::updates::Translator;
use super::wire::{ContentBlock, ModeInfo, ModeState, UpdateParams};

/// The modes a client may switch between: koi's approval modes that still
/// ask or refuse. `bypass` is offered only when `k acp --mode bypass`
/// started it: a user's choice on the command line, never a client's.
const MODES: [ModeInfo; 4] = [
    ModeInfo {
        id: "default",
        name: "Default",
        description: "Reads run; edits, commands that change things and the network ask first",
    },
    ModeInfo {
        id: "accept-edits",
        name: "Accept edits",
        description: "File edits in the workspace run too; commands and the network ask",
    },
    ModeInfo {
        id: "plan",
        name: "Plan",
        description: "Read-only: anything else is refused with a reason",
    },
    ModeInfo {
        id: "dont-ask",
        name: "Don't ask",
        description: "Unattended: whatever would ask is refused instead",
    },
];

const BYPASS: ModeInfo = ModeInfo {
    id: "bypass",
    name: "Bypass",
    description: "Everything runs but what koi's floor forbids (chosen with k acp --mode bypass)",
};

/// How a session's tools reach its files: the client's editor, when it
/// offers that, and the session id its requests name (known once the
/// conversation exists, after the engine is built).
#[derive(Clone, Default)]
pub struct SessionFiles {
    /// The session's id, set by [`Session::new`].
    pub id: Arc<OnceLock<String>>,
    /// The client's files (`None`: the disk).
    pub editor: ai_tools::Editor,
}

/// A running turn.
struct Running {
    cancel: CancelHandle,
    cancelled: Arc<AtomicBool>,
    running: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// One session.
pub struct Session {
    id: String,
    engine: Engine,
    conv: Conversation,
    bypass_allowed: bool,
    always: Always,
    turn: Option<Running>,
    files: SessionFiles,
}

impl Session {
    /// A session over `conv`, whose turns `engine` runs.
    pub fn new(engine: Engine, conv: Conversation, files: SessionFiles) -> Session {
        let bypass_allowed = engine.mode() == Mode::Bypass;
        let _ = files.id.set(conv.id());
        Session {
            files,
            id: conv.id(),
            engine,
            conv,
            bypass_allowed,
            always: Always::default(),
            turn: None,
        }
    }

    /// Its id (the conversation's).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The modes offered and the one in force.
    pub fn modes(&self) -> ModeState {
        let mut available = MODES.to_vec();
        if self.bypass_allowed {
            available.push(BYPASS);
        }
        ModeState {
            current_mode_id: self.engine.mode().to_string(),
            available_modes: available,
        }
    }

    /// Switches to mode `id` for the turns that start afterwards.
    pub fn set_mode(&self, id: &str) -> Result<(), RpcError> {
        let offered = self.modes().available_modes.iter().any(|m| m.id == id);
        let mode: Option<Mode> = id.parse().ok();
        match mode {
            Some(mode) if offered && mode.as_str() == id => {
                self.engine.set_mode(mode);
                Ok(())
            }
            _ => Err(RpcError::invalid_params(format!(
                "unknown mode {id:?}; this session offers: {}",
                self.modes()
                    .available_modes
                    .iter()
                    .map(|m| m.id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Whether a prompt is running.
    pub fn is_running(&self) -> bool {
        self.turn
            .as_ref()
            .is_some_and(|t| t.running.load(Ordering::SeqCst))
    }

    /// Starts a turn for `prompt`, answered on request `request_id` when it
    /// ends; an error when one runs already or the prompt has nothing koi
    /// can read.
    pub fn prompt(
        &mut self,
        peer: &Arc<Peer>,
        request_id: Value,
        prompt: Vec<ContentBlock>,
    ) -> Result<(), RpcError> {
        if self.is_running() {
            return Err(RpcError::new(
                SERVER_BUSY,
                format!(
                    "session {} is busy with a prompt; cancel it or wait for its end",
                    self.id
                ),
            ));
        }
        let job = job(prompt)?;
        if let Some(old) = self.turn.take() {
            let _ = old.thread.join();
        }
        let (rx, cancel) = match job {
            Job::Ask(input) => self.engine.submit(&self.conv, input),
            Job::Goal(spec) => self.engine.start_goal(&self.conv, spec),
            Job::GoalResume => self.engine.continue_goal(&self.conv),
        };
        let cancelled = Arc::new(AtomicBool::new(false));
        let running = Arc::new(AtomicBool::new(true));
        let turn = Turn {
            peer: peer.clone(),
            session_id: self.id.clone(),
            request_id,
            translator: Translator::new(
                self.conv.clone(),
                self.engine.workspace().to_path_buf(),
                Some(self.files.editor.clone()),
            ),
            cancel: cancel.clone(),
            cancelled: cancelled.clone(),
            running: running.clone(),
            always: self.always.clone(),
            window: self.engine.context_window().tokens,
        };
        let thread = std::thread::Builder::new()
            .name(format!("acp-turn-{}", self.id))
            .spawn(move || turn.run(&rx))
            .map_err(|e| RpcError::new(super::rpc::INTERNAL_ERROR, e.to_string()))?;
        self.turn = Some(Running {
            cancel,
            cancelled,
            running,
            thread,
        });
        Ok(())
    }

    /// Cancels the running turn, if any (`session/cancel`): streaming
    /// stops, a running command is stopped, and the prompt is answered
    /// `cancelled`.
    pub fn cancel(&self) {
        if let Some(t) = &self.turn {
            if t.running.load(Ordering::SeqCst) {
                t.cancelled.store(true, Ordering::SeqCst);
                t.cancel.cancel();
            }
        }
    }

    /// Cancels the running turn and waits for it to end (the client is
    /// gone), so the conversation's log ends with the turn's last record.
    pub fn close(mut self) {
        self.cancel();
        if let Some(t) = self.turn.take() {
            let _ = t.thread.join();
        }
    }

    /// Sends the saved conversation as updates (`session/load`).
    pub fn replay(&self, peer: &Peer) {
        let mut translator = Translator::new(
            self.conv.clone(),
            self.engine.workspace().to_path_buf(),
            None,
        );
        for update in translator.replay() {
            let params = UpdateParams {
                session_id: &self.id,
                update: &update,
            };
            if peer.notify("session/update", &params).is_err() {
                return;
            }
        }
    }
}

/// What a prompt asks for.
enum Job {
    /// A question.
    Ask(UserInput),
    /// `/goal TEXT --check COMMAND`: goal mode, as in `k`.
    Goal(GoalSpec),
    /// `/goal resume`.
    GoalResume,
}

/// The job for `prompt`: a `/goal` line starts or resumes goal mode;
/// anything else is a question.
fn job(prompt: Vec<ContentBlock>) -> Result<Job, RpcError> {
    let input = user_input(prompt)?;
    let text = input.text.trim();
    if !(text == "/goal" || text.starts_with("/goal ")) {
        return Ok(Job::Ask(input));
    }
    match SlashCommand::parse(text) {
        SlashCommand::Goal(GoalCommand::Set {
            objective,
            check,
            limits,
        }) => GoalSpec::new(&objective, check.as_deref(), limits)
            .map(Job::Goal)
            .map_err(RpcError::invalid_params),
        SlashCommand::Goal(GoalCommand::Resume) => Ok(Job::GoalResume),
        SlashCommand::Goal(GoalCommand::Invalid(why)) => Err(RpcError::invalid_params(why)),
        _ => Err(RpcError::invalid_params(
            "in an editor, /goal takes TEXT --check COMMAND, or resume",
        )),
    }
}

/// A prompt as koi's user input: text blocks joined, a resource link
/// named in the text, an embedded text resource attached as a file.
pub fn user_input(prompt: Vec<ContentBlock>) -> Result<UserInput, RpcError> {
    let mut text = String::new();
    let mut input = UserInput::default();
    let mut add = |piece: &str| {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(piece);
    };
    let mut files = Vec::new();
    for block in prompt {
        match block {
            ContentBlock::Text { text } => add(&text),
            ContentBlock::ResourceLink { uri, name } => add(&format!("[{name}]({uri})")),
            ContentBlock::Resource { resource } => match resource.text {
                Some(body) => files.push((resource.uri, body)),
                None => add(&format!(
                    "[{} is binary; its contents were not read]",
                    resource.uri
                )),
            },
            ContentBlock::Image {} | ContentBlock::Audio {} => {
                return Err(RpcError::invalid_params(
                    "images and audio are not among this agent's prompt capabilities",
                ))
            }
        }
    }
    if text.trim().is_empty() && files.is_empty() {
        return Err(RpcError::invalid_params("the prompt is empty"));
    }
    input.text = text;
    for (uri, body) in files {
        input = input.with_attachment(AttachmentKind::File, &uri, &body);
    }
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::wire::EmbeddedResource;

    #[test]
    fn resources_fold_into_the_message() {
        let input = user_input(vec![
            ContentBlock::Text {
                text: "explain".into(),
            },
            ContentBlock::ResourceLink {
                uri: "file:///ws/a.rs".into(),
                name: "a.rs".into(),
            },
            ContentBlock::Resource {
                resource: EmbeddedResource {
                    uri: "file:///ws/b.rs".into(),
                    text: Some("fn b() {}".into()),
                    blob: None,
                },
            },
        ])
        .ok();
        let input = input.unwrap_or_default();
        assert_eq!(input.text, "explain\n[a.rs](file:///ws/a.rs)");
        assert_eq!(input.attachments.len(), 1);
        assert_eq!(input.attachments[0].label, "file:///ws/b.rs");
        assert_eq!(input.attachments[0].content, "fn b() {}");
    }

    #[test]
    fn an_empty_prompt_is_refused() {
        assert!(user_input(vec![]).is_err());
        assert!(user_input(vec![ContentBlock::Image {}]).is_err());
    }
}
