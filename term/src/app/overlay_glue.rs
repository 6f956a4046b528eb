//! The Cmd+L overlay in the window: what it captures when it opens, and
//! what its actions do to the engine, the terminal and the clipboard.

use std::path::PathBuf;

use ai_chat_engine::{Attachment, AttachmentKind, Event, GoalCommand, GoalSpec};
use ai_tools::Mode;

use super::assistant::{Assistant, Job, MemoryAnswer};
use super::clipboard::{Clipboard, Kind};
use crate::overlay::{Attachment as Chip, Overlay, OverlayAction, SlashCommand};
use koi_terminal::input::{encode_paste, KeyEvent};
use koi_terminal::snapshot::Snapshot;
use koi_terminal::Session;

/// Context captured when the panel opens; the chips say which go along.
#[derive(Default)]
pub struct Captured {
    items: Vec<(AttachmentKind, String, String)>,
    pub cwd: Option<PathBuf>,
}

impl Captured {
    /// The visible screen, the selection and the last command, as the user
    /// sees them now.
    pub fn take(session: &Session) -> Self {
        let (screen, selection) = {
            let term = session.terminal().lock();
            (Snapshot::capture(&*term).text(), term.selection_to_string())
        };
        let mut items = vec![(AttachmentKind::Terminal, "screen".to_owned(), screen)];
        if let Some(selection) = selection.filter(|s| !s.trim().is_empty()) {
            items.push((AttachmentKind::Selection, "selection".to_owned(), selection));
        }
        if let Some(last) = session.last_command() {
            let exit = last
                .exit_code
                .map_or(String::new(), |c| format!(" (exit {c})"));
            let content = format!("$ {}{exit}\n{}", last.command, last.output);
            items.push((
                AttachmentKind::CommandOutput,
                "last command".to_owned(),
                content,
            ));
        }
        Self {
            items,
            cwd: session.current_dir(),
        }
    }

    /// Exactly `attachments`, for a question koi asks itself.
    pub fn of(attachments: Vec<Attachment>, cwd: Option<PathBuf>) -> Self {
        let items = attachments
            .into_iter()
            .map(|a| (a.kind, a.label, a.content))
            .collect();
        Self { items, cwd }
    }

    pub fn chips(&self) -> Vec<Chip> {
        self.items
            .iter()
            .map(|(_, label, _)| Chip {
                label: label.clone(),
                included: true,
            })
            .collect()
    }

    /// The attachments whose chips are still included.
    fn selected(&self, chips: &[Chip]) -> Vec<Attachment> {
        self.items
            .iter()
            .filter(|(_, label, _)| chips.iter().any(|c| &c.label == label && c.included))
            .map(|(kind, label, content)| Attachment {
                kind: *kind,
                label: label.clone(),
                content: content.clone(),
            })
            .collect()
    }
}

/// Everything an overlay action may touch.
pub struct Ctx<'a> {
    pub overlay: &'a mut Overlay,
    pub assistant: &'a mut Assistant,
    pub captured: &'a Captured,
    pub session: &'a Session,
    pub clipboard: &'a mut Clipboard,
    /// Where tools work: the shell's cwd, else koi's.
    pub workspace: PathBuf,
}

impl Ctx<'_> {
    pub fn key(&mut self, key: &KeyEvent, text: Option<&str>) {
        let action = self.overlay.handle_key(key, text);
        self.act(action);
    }

    pub fn act(&mut self, action: OverlayAction) {
        match action {
            OverlayAction::None | OverlayAction::Redraw | OverlayAction::Close => {}
            OverlayAction::Submit(text) => {
                self.overlay.set_picture_dir(&self.workspace);
                let attachments = self.captured.selected(self.overlay.attachments());
                let size = self.session.size();
                match self.assistant.submit(
                    text,
                    attachments,
                    (size.cols, size.rows),
                    &self.workspace,
                ) {
                    Ok(()) => self.overlay.set_busy(true),
                    Err(e) => {
                        self.overlay.set_busy(false);
                        self.overlay
                            .error(format!("the assistant could not start: {e}"));
                    }
                }
                self.refresh_status();
            }
            OverlayAction::Cancel => self.assistant.cancel(),
            OverlayAction::Approve => self.decide(true, false),
            OverlayAction::ApproveForConversation => self.decide(true, true),
            OverlayAction::Deny => self.decide(false, false),
            OverlayAction::InsertIntoTerminal(command) => self.insert_at_prompt(&command),
            OverlayAction::Copy(text) => self.clipboard.store(Kind::Clipboard, text),
            OverlayAction::Slash(command) => self.slash(command),
        }
    }

    /// Types `command` at the shell's prompt (never run: no trailing
    /// newline) and closes the panel.
    fn insert_at_prompt(&mut self, command: &str) {
        let bracketed = self
            .session
            .terminal()
            .lock()
            .mode()
            .contains(alacritty_terminal::term::TermMode::BRACKETED_PASTE);
        self.session.write(encode_paste(
            command.trim_end_matches(['\n', '\r']),
            bracketed,
        ));
        self.overlay.close();
    }

    fn slash(&mut self, command: SlashCommand) {
        match command {
            SlashCommand::New | SlashCommand::Clear => {
                self.assistant.new_conversation();
                self.overlay.conversation_mut().clear();
                self.overlay.set_busy(false);
            }
            SlashCommand::Mode(Some(name)) => match name.parse::<Mode>() {
                Ok(mode) => match self.assistant.set_mode(mode, &self.workspace) {
                    Ok(()) => self.overlay.notice(format!("mode: {mode}")),
                    Err(e) => self.overlay.error(e),
                },
                Err(e) => self.overlay.error(e.to_string()),
            },
            SlashCommand::Mode(None) | SlashCommand::Model(None) | SlashCommand::Status => {
                let status = self
                    .assistant
                    .describe()
                    .unwrap_or_else(|| "not started yet".into());
                let sandbox = self
                    .assistant
                    .sandbox_label()
                    .map(|s| format!(" · {s}"))
                    .unwrap_or_default();
                let usage = self.overlay.conversation().usage().map_or(
                    String::new(),
                    |(input, cached, output)| {
                        let pct = (cached * 100).checked_div(input).unwrap_or(0);
                        format!(" · tokens in {input} ({pct}% cached) out {output}")
                    },
                );
                let agents = ai_chat_engine::project_instructions::provenance(
                    &self.workspace,
                    ai_chat_engine::config::config_dir().as_deref(),
                );
                self.overlay
                    .notice(format!("{status}{sandbox}{usage} · AGENTS.md: {agents}"));
            }
            SlashCommand::Cost => self.overlay.notice(self.assistant.usage_report()),
            SlashCommand::Model(Some(name)) => {
                match self.assistant.set_model(&name, &self.workspace) {
                    Ok(model) => self.overlay.notice(format!("model: {model}")),
                    Err(e) => self.overlay.error(e),
                }
            }
            SlashCommand::Resume(None) | SlashCommand::Sessions => {
                match self.assistant.sessions(&self.workspace) {
                    Ok(table) => self.overlay.notice(table.trim_end()),
                    Err(e) => self.overlay.error(e),
                }
            }
            SlashCommand::Resume(Some(id)) => match self.assistant.resume(&id, &self.workspace) {
                Ok((transcript, notes)) => {
                    self.overlay.set_busy(false);
                    self.overlay.conversation_mut().load(transcript);
                    if !self.assistant.is_read_only() {
                        self.overlay
                            .notice(format!("continuing session {id} · /new starts fresh"));
                    }
                    for note in notes {
                        self.overlay.notice(note);
                    }
                    self.after_decision();
                }
                Err(e) => self.overlay.error(e),
            },
            SlashCommand::Fork(id) => match self.assistant.fork(id.as_deref(), &self.workspace) {
                Ok((new_id, transcript, notes)) => {
                    self.overlay.set_busy(false);
                    self.overlay.conversation_mut().load(transcript);
                    self.overlay
                        .notice(format!("continuing a copy as session {new_id}"));
                    for note in notes {
                        self.overlay.notice(note);
                    }
                    self.after_decision();
                }
                Err(e) => self.overlay.error(e),
            },
            SlashCommand::Cd(Some(dir)) => match self.assistant.name_dir(&dir, &self.workspace) {
                Ok(dir) => {
                    self.overlay.conversation_mut().clear();
                    self.overlay.set_busy(false);
                    self.overlay
                        .notice(format!("working in {} · a new conversation", dir.display()));
                    self.workspace = dir;
                }
                Err(e) => self.overlay.error(format!("/cd: {e}")),
            },
            SlashCommand::Cd(None) => self
                .overlay
                .notice(format!("working in {}", self.workspace.display())),
            SlashCommand::Compact => self.start_job(Job::Compact),
            SlashCommand::Goal(GoalCommand::Show) => {
                let text = self.assistant.goal_text();
                self.overlay.notice(text);
            }
            SlashCommand::Goal(GoalCommand::Clear) => match self.assistant.clear_goal() {
                Ok(text) => self.overlay.notice(text),
                Err(e) => self.overlay.error(e),
            },
            SlashCommand::Goal(GoalCommand::Resume) => self.start_job(Job::GoalResume),
            SlashCommand::Goal(GoalCommand::Set {
                objective,
                check,
                limits,
            }) => match GoalSpec::new(&objective, check.as_deref(), limits) {
                Ok(spec) => self.start_job(Job::Goal(spec)),
                Err(e) => self.overlay.error(e),
            },
            SlashCommand::Goal(GoalCommand::Invalid(e)) => self.overlay.error(e),
            SlashCommand::Image(Some(file)) => {
                match self.assistant.attach_image(&file, &self.workspace) {
                    Ok(line) => self.overlay.notice(line),
                    Err(e) => self.overlay.error(e),
                }
            }
            SlashCommand::Image(None) => self.overlay.notice(self.assistant.pending_images()),
            SlashCommand::Memory(cmd) => match self.assistant.memory(&cmd, &self.workspace) {
                Ok(MemoryAnswer::Show(text)) => self.overlay.notice(text),
                // Typed at the prompt like an inserted command: Enter opens it.
                Ok(MemoryAnswer::Edit(path)) => {
                    let line = ai_chat_engine::memory::editor_shell_line(&path);
                    self.insert_at_prompt(&line);
                }
                Err(e) => self.overlay.error(e),
            },
            SlashCommand::Exit => self.overlay.close(),
            SlashCommand::Help | SlashCommand::Init | SlashCommand::Unknown(_) => {}
        }
        self.refresh_status();
    }

    fn start_job(&mut self, job: Job) {
        match self.assistant.start_job(job, &self.workspace) {
            Ok(()) => self.overlay.set_busy(true),
            Err(e) => self.overlay.error(e),
        }
    }

    /// Answers the approval row: an engine approval, or the rerun/abandon
    /// choice for an interrupted call.
    fn decide(&mut self, approve: bool, for_conversation: bool) {
        self.assistant.decide(approve, for_conversation);
        self.after_decision();
    }

    /// Shows the next interrupted call to decide, or, once all are
    /// decided, continues the interrupted turn.
    fn after_decision(&mut self) {
        if let Some(row) = self.assistant.next_uncertain() {
            self.overlay.set_approval(Some(row));
        } else if self.assistant.continue_interrupted() {
            self.overlay.set_busy(true);
        }
    }

    /// Feed what the engine sent since the last wake-up.
    pub fn pump(&mut self) -> bool {
        let messages = self.assistant.drain();
        let mut changed = false;
        for msg in &messages {
            changed |= self.overlay.apply(msg);
            if matches!(msg, Event::AssistantStart) {
                self.refresh_status();
            }
        }
        if !self.assistant.is_busy() && self.overlay.is_busy() {
            self.overlay.set_busy(false);
            changed = true;
        }
        changed
    }

    fn refresh_status(&mut self) {
        if let Some(status) = self.assistant.describe() {
            let (model, mode) = status.split_once(" · ").unwrap_or((status.as_str(), ""));
            self.overlay.set_status(model, mode);
        }
        if let Some(label) = self.assistant.sandbox_label() {
            self.overlay.set_sandbox(&label);
        }
    }
}
