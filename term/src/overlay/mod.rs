//! The Cmd+L overlay's model and layout, free of any window: markdown
//! ([`markdown`]), the input box ([`input_box`]), the conversation view
//! ([`conversation`]) and the [`Overlay`] that ties them to keys and to
//! [`render::OverlayLayer`]s ([`panel`]).
//!
//! Keys inside the panel: Enter sends (or runs a `/command`), Shift+Enter
//! or Alt+Enter adds a line, Esc cancels a running turn and then closes,
//! PgUp/PgDn scroll, Tab/Shift+Tab pick an attachment chip (empty input)
//! and Ctrl+D drops or restores it, Ctrl+R folds reasoning, Ctrl+Y puts the
//! latest answer's last code block at the shell prompt, Ctrl+Shift+C copies
//! the selection, or the latest answer when nothing is selected. While an
//! approval is pending only Enter (allow), `a` (allow for the conversation)
//! and Esc (deny) act; arrows and PgUp/PgDn scroll the dialog.
//!
//! The mouse in the panel ([`mouse`], [`selection`]): drag in the
//! conversation to select, double-click for a word, triple-click for a
//! line; releasing sets the primary selection. The selection stays on its
//! text while the panel scrolls or an answer streams; a plain click, Esc,
//! editing the input, folding reasoning, a re-wrap (resize) or clearing the
//! conversation drops it. Esc drops a selection before it closes the panel.

pub mod config;
pub mod conversation;
pub mod input_box;
pub mod markdown;
mod mouse;
pub mod panel;
pub mod pictures;
pub mod selection;
pub mod style;
pub mod subagent;
pub mod wrap;

use ai_chat_engine::Event;
pub use ai_chat_engine::SlashCommand;

pub use config::{OverlayConfig, Position};
pub use conversation::{Block, Conversation, ToolState};
pub use input_box::{Edit, InputBox};
pub use selection::SelectionKind;

use koi_terminal::input::{Key, KeyAction, KeyEvent};

/// Lines a PgUp/PgDn moves the conversation; a few lines of overlap with a
/// typical panel height keeps the reader's place.
const PAGE_LINES: isize = 10;

/// The help text `/help` shows.
pub const HELP: &str = "Enter send · Shift+Enter newline · Esc cancel/close · PgUp/PgDn scroll\n\
Tab pick attachment · Ctrl+D toggle it · Ctrl+R reasoning · Ctrl+Y insert code\n\
drag/double/triple-click select · Ctrl+Shift+C copy selection (or answer)\n\
/new · /clear · /resume [id] · /fork [id] · /model [name] · /mode [name] · /cd DIR · /status · /cost ·\n/image FILE · /init · /compact · /memory [edit [global]] · /help\n\
/goal TEXT [--turns N] [--tokens N] [--minutes N] --check COMMAND · /goal [resume|clear]";

/// What the app should do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverlayAction {
    /// Nothing changed.
    None,
    /// The panel changed; draw it.
    Redraw,
    /// Send this message (the panel already shows it and is busy); if a
    /// turn was running, interrupt it first and drop its remaining events
    /// (the panel has already marked it interrupted).
    Submit(String),
    /// First Esc while busy: cancel the running turn.
    Cancel,
    /// Esc while idle: the panel has closed itself.
    Close,
    /// Enter on a pending approval.
    Approve,
    /// `a` on a pending approval: allow this kind for the conversation.
    ApproveForConversation,
    /// Esc on a pending approval.
    Deny,
    /// Type this at the shell prompt (not executed).
    InsertIntoTerminal(String),
    /// A slash command to carry out.
    Slash(SlashCommand),
    /// Put this on the clipboard.
    Copy(String),
}

/// One piece of context offered with the next message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Short label (`screen`, `selection`, `last command`).
    pub label: String,
    /// Whether it goes with the next message.
    pub included: bool,
}

/// An approval the engine is waiting for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingApproval {
    /// One line naming what would run or change.
    pub summary: String,
    /// Why, and for edits the diff (unified diff lines are coloured).
    pub detail: String,
    /// Lines the detail is scrolled down.
    pub scroll: usize,
}

/// The overlay's whole state.
#[derive(Debug)]
pub struct Overlay {
    pub(crate) config: OverlayConfig,
    pub(crate) open: bool,
    pub(crate) conversation: Conversation,
    pub(crate) input: InputBox,
    pub(crate) attachments: Vec<Attachment>,
    pub(crate) chip_focus: usize,
    pub(crate) approval: Option<PendingApproval>,
    pub(crate) busy: bool,
    pub(crate) cancel_sent: bool,
    pub(crate) model: String,
    pub(crate) mode: String,
    /// The sandbox label shown in the title (empty until known).
    pub(crate) sandbox: String,
    /// The last grid and theme drawn, for [`Overlay::text_dump`].
    pub(crate) last_grid: (usize, usize),
    pub(crate) last_theme: render::Theme,
    /// The mouse selection in the conversation.
    pub(crate) selection: Option<selection::Selection>,
    /// Where the last layout drew the conversation, for the mouse.
    pub(crate) conv_area: Option<mouse::TextArea>,
    /// Where the last layout drew the input box (none under a dialog).
    pub(crate) input_area: Option<mouse::TextArea>,
    /// The last drag scrolled the view (the pointer is past an edge).
    pub(crate) edge_scrolled: bool,
    /// Where relative picture paths start (the last turn's workspace).
    pub(crate) picture_dir: std::path::PathBuf,
    /// The window's cell size in pixels (pictures are fitted in cells).
    pub(crate) cell_px: (u32, u32),
    /// The pictures of the conversation's view at the last layout.
    pub(crate) conv_pictures: Vec<render::OverlayPicture>,
}

impl Overlay {
    /// A closed overlay.
    pub fn new(config: OverlayConfig) -> Self {
        Self {
            config,
            open: false,
            conversation: Conversation::new(),
            input: InputBox::new(),
            attachments: Vec::new(),
            chip_focus: 0,
            approval: None,
            busy: false,
            cancel_sent: false,
            model: String::new(),
            mode: String::new(),
            sandbox: String::new(),
            last_grid: (panel::FALLBACK_GRID.0, panel::FALLBACK_GRID.1),
            last_theme: render::Theme::default(),
            selection: None,
            conv_area: None,
            input_area: None,
            edge_scrolled: false,
            picture_dir: std::path::PathBuf::new(),
            cell_px: pictures::DEFAULT_CELL_PX,
            conv_pictures: Vec::new(),
        }
    }

    /// Where the paths of pictures answers name start: the workspace of
    /// the turn being asked.
    pub fn set_picture_dir(&mut self, dir: &std::path::Path) {
        self.picture_dir = dir.to_path_buf();
        self.conversation
            .set_picture_context(&self.picture_dir, self.cell_px);
    }

    /// The cell size in pixels pictures are fitted to (the window's).
    pub fn set_cell_px(&mut self, cell_px: (u32, u32)) {
        self.cell_px = cell_px;
        self.conversation
            .set_picture_context(&self.picture_dir, self.cell_px);
    }

    /// Shows the panel (the conversation is kept across close/open).
    pub fn open(&mut self) {
        self.open = true;
    }

    /// Hides the panel (a selection is kept, but no longer dragged: the
    /// release goes to the terminal).
    pub fn close(&mut self) {
        self.open = false;
        if let Some(selection) = &mut self.selection {
            selection.finish();
        }
    }

    /// Whether the panel is showing.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Replaces the settings.
    pub fn set_config(&mut self, config: OverlayConfig) {
        self.config = config;
    }

    /// Model and mode for the title line.
    pub fn set_status(&mut self, model: &str, mode: &str) {
        self.model = model.to_string();
        self.mode = mode.to_string();
    }

    /// The sandbox label for the title line.
    pub fn set_sandbox(&mut self, label: &str) {
        self.sandbox = label.to_string();
    }

    /// The context offered with the next message (captured on open).
    pub fn set_attachments(&mut self, attachments: Vec<Attachment>) {
        self.attachments = attachments;
        self.chip_focus = 0;
    }

    /// The attachments and whether each is included.
    pub fn attachments(&self) -> &[Attachment] {
        &self.attachments
    }

    /// Marks a turn as running (or not).
    pub fn set_busy(&mut self, busy: bool) {
        self.busy = busy;
        self.cancel_sent = false;
    }

    /// Whether a turn is streaming.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// The conversation view.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The conversation view, mutably (to push notices, clear, …). Drops
    /// the selection, whose lines such an edit may move.
    pub fn conversation_mut(&mut self) -> &mut Conversation {
        self.selection = None;
        &mut self.conversation
    }

    /// The pending approval, if any.
    pub fn approval(&self) -> Option<&PendingApproval> {
        self.approval.as_ref()
    }

    /// Shows (or removes) an approval dialog.
    pub fn set_approval(&mut self, approval: Option<(String, String)>) {
        self.approval = approval.map(|(summary, detail)| PendingApproval {
            summary,
            detail,
            scroll: 0,
        });
    }

    /// Adds a note to the conversation.
    pub fn notice(&mut self, text: impl Into<String>) {
        self.conversation.push(Block::Notice(text.into()));
        self.conversation.scroll_to_bottom();
    }

    /// Adds an error to the conversation.
    pub fn error(&mut self, text: impl Into<String>) {
        self.conversation.push(Block::Error(text.into()));
        self.conversation.scroll_to_bottom();
    }

    /// Feeds an engine event; true when the panel needs a redraw.
    /// `ApprovalAsked` opens the dialog (the caller answers it through
    /// the turn's handle); `Done`/`Error` clear the busy flag and any
    /// dialog.
    pub fn apply(&mut self, msg: &Event) -> bool {
        match msg {
            Event::ApprovalAsked {
                summary, detail, ..
            } => {
                self.set_approval(Some((summary.clone(), detail.clone())));
                true
            }
            m => {
                if m.is_terminal() {
                    self.set_busy(false);
                    self.approval = None;
                }
                self.conversation.apply(m)
            }
        }
    }

    /// Advances spinners; true when a redraw is due.
    pub fn tick(&mut self) -> bool {
        self.conversation.tick() || self.busy
    }

    /// Pastes into the input box (ignored while an approval is pending).
    pub fn paste(&mut self, text: &str) {
        if self.approval.is_none() {
            self.input.paste(text);
        }
    }

    /// Sets the IME preedit shown at the input cursor.
    pub fn set_preedit(&mut self, preedit: Option<String>) {
        self.input.set_preedit(preedit);
    }

    /// Scrolls the conversation (positive = older), or the approval detail
    /// while one is pending (positive = further down).
    pub fn scroll(&mut self, lines: isize) {
        match &mut self.approval {
            Some(a) => a.scroll = a.scroll.saturating_add_signed(lines.saturating_neg()),
            None => self.conversation.scroll(lines),
        }
    }

    /// The input box.
    pub fn input(&self) -> &InputBox {
        &self.input
    }

    /// The last code block of the latest answer.
    pub fn last_code_block(&self) -> Option<markdown::CodeBlock> {
        markdown::code_blocks(self.conversation.latest_answer()?).pop()
    }

    /// Handles a key while the panel is open. `text` is what the key typed.
    pub fn handle_key(&mut self, ev: &KeyEvent, text: Option<&str>) -> OverlayAction {
        if !self.open || ev.action == KeyAction::Release {
            return OverlayAction::None;
        }
        if self.approval.is_some() {
            return self.approval_key(ev);
        }
        let m = ev.mods;
        let plain = !m.ctrl && !m.alt && !m.logo;
        match &ev.key {
            Key::Escape => {
                if self.busy && !self.cancel_sent {
                    self.cancel_sent = true;
                    return OverlayAction::Cancel;
                }
                if self.clear_selection() {
                    return OverlayAction::Redraw;
                }
                self.close();
                return OverlayAction::Close;
            }
            Key::PageUp => {
                self.conversation.scroll(PAGE_LINES);
                return OverlayAction::Redraw;
            }
            Key::PageDown => {
                self.conversation.scroll(-PAGE_LINES);
                return OverlayAction::Redraw;
            }
            Key::Tab if plain && self.input.is_empty() && !self.attachments.is_empty() => {
                let n = self.attachments.len();
                self.chip_focus = if m.shift {
                    (self.chip_focus + n - 1) % n
                } else {
                    (self.chip_focus + 1) % n
                };
                return OverlayAction::Redraw;
            }
            Key::Char(c) if m.ctrl && !m.alt => {
                let lower = c.to_ascii_lowercase();
                if m.shift && lower == 'c' {
                    return self
                        .copy_text()
                        .map_or(OverlayAction::None, OverlayAction::Copy);
                }
                if !m.shift {
                    match lower {
                        'd' => {
                            if let Some(a) = self.attachments.get_mut(self.chip_focus) {
                                a.included = !a.included;
                                return OverlayAction::Redraw;
                            }
                            return OverlayAction::None;
                        }
                        'r' => {
                            // Folding moves every line below the reasoning.
                            self.clear_selection();
                            self.conversation.toggle_reasoning();
                            return OverlayAction::Redraw;
                        }
                        'y' => {
                            return match self.last_code_block() {
                                Some(b) => OverlayAction::InsertIntoTerminal(b.code),
                                None => {
                                    self.notice("no code block in the latest answer to insert");
                                    OverlayAction::Redraw
                                }
                            };
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        let edit = self.input.handle_key(ev, text);
        if edit != Edit::Unhandled {
            // Typing moves on from what was selected, as in the terminal.
            self.clear_selection();
        }
        match edit {
            Edit::Unhandled => OverlayAction::None,
            Edit::Changed => OverlayAction::Redraw,
            Edit::Submit(text) => self.submit(text),
        }
    }

    /// Sends `text` as if the user had typed it and pressed Enter (koi's
    /// own questions, such as "why did this command fail?").
    pub fn ask(&mut self, text: String) -> OverlayAction {
        self.submit(text)
    }

    fn submit(&mut self, text: String) -> OverlayAction {
        self.conversation.scroll_to_bottom();
        if text.trim_start().starts_with('/') {
            return match SlashCommand::parse(&text) {
                SlashCommand::Unknown(unknown) => {
                    self.error(format!("unknown command {unknown} (try /help)"));
                    OverlayAction::Redraw
                }
                // A request like any other: the model writes the file
                // through the normal approval.
                SlashCommand::Init => {
                    self.submit(ai_chat_engine::project_instructions::INIT_PROMPT.to_string())
                }
                cmd => {
                    if cmd == SlashCommand::Help {
                        self.notice(HELP);
                    }
                    OverlayAction::Slash(cmd)
                }
            };
        }
        if self.busy {
            self.conversation.mark_interrupted();
        }
        let attachments = self
            .attachments
            .iter()
            .filter(|a| a.included)
            .map(|a| a.label.clone())
            .collect();
        self.conversation.push(Block::You {
            text: text.clone(),
            attachments,
        });
        self.set_busy(true);
        OverlayAction::Submit(text)
    }

    fn approval_key(&mut self, ev: &KeyEvent) -> OverlayAction {
        let m = ev.mods;
        let plain = !m.ctrl && !m.alt && !m.logo && !m.shift;
        let action = match &ev.key {
            Key::Enter if plain => OverlayAction::Approve,
            Key::Escape if plain => OverlayAction::Deny,
            Key::Char('a') if plain => OverlayAction::ApproveForConversation,
            Key::Up => {
                self.scroll(1);
                return OverlayAction::Redraw;
            }
            Key::Down => {
                self.scroll(-1);
                return OverlayAction::Redraw;
            }
            Key::PageUp => {
                self.scroll(PAGE_LINES);
                return OverlayAction::Redraw;
            }
            Key::PageDown => {
                self.scroll(-PAGE_LINES);
                return OverlayAction::Redraw;
            }
            _ => return OverlayAction::None,
        };
        self.approval = None;
        action
    }
}

#[cfg(test)]
mod tests;
