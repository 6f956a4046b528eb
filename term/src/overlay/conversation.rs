//! The conversation as the panel shows it: a list of blocks updated from
//! the engine's [`Event`]s and laid out to lines with a per-block cache,
//! so a streaming token re-lays only the block it lands in.

use ai_chat_engine::protocol::{CompactionOutcome, ErrorKind};
use ai_chat_engine::{Event, TranscriptItem};
use render::{Span, StyledLine};

use super::markdown;
use super::pictures::{AnswerPictures, LaidPicture};
use super::style::Palette;
use super::subagent::Steps;
use super::wrap::{wrap, WrapOpts};

/// Braille spinner frames, the same look most CLIs use.
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// The blank line between blocks.
static BLANK: StyledLine = StyledLine::new(Vec::new());
/// Cells the body of a block is indented under its label.
const BODY_INDENT: &str = "  ";

/// Where a tool call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolState {
    /// Still running.
    Running,
    /// Finished, with its one-line result.
    Done(String),
    /// Failed, refused or not run.
    Failed(String),
}

/// One thing in the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// The user's message and the labels of the context attached to it.
    You {
        /// What the user typed.
        text: String,
        /// Attachment labels sent with it.
        attachments: Vec<String>,
    },
    /// An answer (markdown), growing token by token.
    Assistant(String),
    /// The model's reasoning, folded unless the panel shows reasoning.
    Reasoning(String),
    /// A tool call line.
    Tool {
        /// The provider's call id.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments summarised, one line (`koi-demo.txt (1 line)`).
        args: String,
        /// Where it stands.
        state: ToolState,
    },
    /// A failure, drawn in the error colour.
    Error(String),
    /// A note from koi ("cancelled", the demo notice, slash command output).
    Notice(String),
}

/// One block laid out.
#[derive(Debug)]
struct Laid {
    width: usize,
    lines: Vec<StyledLine>,
    /// Pictures drawn over some of `lines`.
    pictures: Vec<LaidPicture>,
}

/// A picture in the lines the last [`Conversation::view`] showed.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownPicture {
    /// Its first row from the view's first line; negative when it begins
    /// above the view.
    pub row: isize,
    /// Where it is and what it shows.
    pub picture: LaidPicture,
}

/// The conversation view model.
#[derive(Debug, Default)]
pub struct Conversation {
    blocks: Vec<Block>,
    /// Each block laid out; `None` when stale.
    cache: Vec<Option<Laid>>,
    cache_palette: Option<Palette>,
    show_reasoning: bool,
    spinner: usize,
    scroll: usize,
    last_total: usize,
    /// The line the last [`Conversation::view`] started at.
    view_start: usize,
    usage: Option<(u64, u64, u64)>,
    /// The latest progress line of each running call, by call id.
    progress: std::collections::HashMap<String, String>,
    /// The steps of each running subagent, by its parent call id.
    children: std::collections::HashMap<String, Steps>,
    /// Lays out answers, keeping the blocks of the one laid out last so a
    /// streaming answer re-lays only the block a token lands in.
    markdown: std::cell::RefCell<koi_markdown::Renderer>,
    /// The pictures answers name, decoded.
    pictures: AnswerPictures,
    /// The pictures the last view showed.
    shown_pictures: Vec<ShownPicture>,
}

impl Conversation {
    /// An empty conversation.
    pub fn new() -> Self {
        Self::default()
    }

    /// The blocks, oldest first.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Appends a block.
    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
        self.cache.push(None);
    }

    /// Where relative picture paths start and the cell size in pixels
    /// (pictures are fitted in cells); answers are laid out again when
    /// either changes.
    pub fn set_picture_context(&mut self, dir: &std::path::Path, cell: (u32, u32)) {
        if self.pictures.set_context(dir, cell) {
            for (i, b) in self.blocks.iter().enumerate() {
                if matches!(b, Block::Assistant(_)) {
                    self.cache[i] = None;
                }
            }
        }
    }

    /// Removes every block.
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.cache.clear();
        self.scroll = 0;
    }

    /// Replaces the view with a saved conversation's transcript, drawn the
    /// way its turns looked live.
    pub fn load(&mut self, transcript: Vec<TranscriptItem>) {
        self.clear();
        self.usage = None;
        for item in transcript {
            match item {
                TranscriptItem::Asked { text, attachments } => {
                    self.push(Block::You { text, attachments });
                }
                TranscriptItem::Event(msg) => {
                    self.apply(&msg);
                }
                TranscriptItem::Summarised => self.push(Block::Notice(
                    "earlier messages were summarised to fit the context".into(),
                )),
            }
        }
        self.scroll_to_bottom();
    }

    /// The last round's token usage: (input, cached input, output).
    pub fn usage(&self) -> Option<(u64, u64, u64)> {
        self.usage
    }

    /// The text of the latest answer, if any.
    pub fn latest_answer(&self) -> Option<&str> {
        self.blocks.iter().rev().find_map(|b| match b {
            Block::Assistant(t) if !t.trim().is_empty() => Some(t.as_str()),
            _ => None,
        })
    }

    fn touch_last(&mut self) {
        if let Some(slot) = self.cache.last_mut() {
            *slot = None;
        }
    }

    /// Updates the view from one engine event; true when something visible
    /// changed. `ApprovalAsked` is the panel's business and is ignored.
    pub fn apply(&mut self, msg: &Event) -> bool {
        match msg {
            Event::AssistantStart => {
                if !matches!(self.blocks.last(), Some(Block::Assistant(t)) if t.is_empty()) {
                    self.push(Block::Assistant(String::new()));
                }
            }
            Event::Token { text: t } => {
                if let Some(Block::Assistant(text)) = self.blocks.last_mut() {
                    text.push_str(t);
                    self.touch_last();
                } else {
                    self.push(Block::Assistant(t.clone()));
                }
            }
            Event::Reasoning { text: t } => {
                if let Some(Block::Reasoning(text)) = self.blocks.last_mut() {
                    text.push_str(t);
                    self.touch_last();
                } else {
                    self.push(Block::Reasoning(t.clone()));
                }
            }
            Event::ToolStart {
                id, name, summary, ..
            } => self.push(Block::Tool {
                id: id.clone(),
                name: name.clone(),
                args: summary.clone(),
                state: ToolState::Running,
            }),
            Event::ToolProgress { id, text } => {
                self.progress.insert(id.clone(), text.clone());
                let at = self.blocks.iter().rposition(
                    |b| matches!(b, Block::Tool { id: i, state: ToolState::Running, .. } if i == id),
                );
                match at {
                    Some(i) => self.cache[i] = None,
                    None => return false,
                }
            }
            Event::Subagent { parent, step } => {
                self.children.entry(parent.clone()).or_default().apply(step);
                let at = self.blocks.iter().rposition(
                    |b| matches!(b, Block::Tool { id: i, state: ToolState::Running, .. } if i == parent),
                );
                match at {
                    Some(i) => self.cache[i] = None,
                    None => return false,
                }
            }
            // A finished call collapses to its line: the subagent's
            // steps go, its summary is the result.
            Event::ToolDone { id, preview } => {
                self.progress.remove(id);
                self.children.remove(id);
                self.finish_tool(id, ToolState::Done(preview.clone()));
            }
            Event::ToolFailed { id, error } => {
                self.children.remove(id);
                self.finish_tool(id, ToolState::Failed(error.clone()));
            }
            Event::ApprovalAsked { .. } => return false,
            Event::Notice { text } => self.push(Block::Notice(text.clone())),
            Event::Usage {
                input,
                cached_input,
                output,
                ..
            } => {
                self.usage = Some((*input, *cached_input, *output));
                return false;
            }
            Event::Compaction {
                outcome, message, ..
            } => {
                let text = message.clone();
                match outcome {
                    CompactionOutcome::Dropped | CompactionOutcome::Failed => {
                        self.push(Block::Error(text));
                    }
                    _ => self.push(Block::Notice(text)),
                }
            }
            Event::Goal { message, .. } => self.push(Block::Notice(message.clone())),
            Event::Done => {
                self.drop_empty_answer();
            }
            Event::Error { kind, message } => {
                self.drop_empty_answer();
                self.interrupt_tools();
                match kind {
                    ErrorKind::Cancelled => self.push(Block::Notice("cancelled".into())),
                    _ => self.push(Block::Error(message.clone())),
                }
            }
            // Lines only `k` writes (its session header, decided
            // approvals, crash reports); the engine does not send them.
            Event::Session { .. } | Event::ApprovalDecided { .. } | Event::Uncertain { .. } => {
                return false
            }
        }
        true
    }

    fn finish_tool(&mut self, call: &str, new_state: ToolState) {
        let found = self.blocks.iter().rposition(
            |b| matches!(b, Block::Tool { id, state: ToolState::Running, .. } if id == call),
        );
        match found {
            Some(i) => {
                if let Block::Tool { state, .. } = &mut self.blocks[i] {
                    *state = new_state;
                }
                self.cache[i] = None;
            }
            None => self.push(Block::Tool {
                id: call.to_string(),
                name: "tool".into(),
                args: String::new(),
                state: new_state,
            }),
        }
    }

    fn drop_empty_answer(&mut self) {
        if matches!(self.blocks.last(), Some(Block::Assistant(t)) if t.trim().is_empty()) {
            self.blocks.pop();
            self.cache.pop();
        }
    }

    /// Ends the view of a turn the user interrupted by sending a new
    /// message (its own `Error` never reaches the view): running tools are
    /// marked interrupted and a notice says so.
    pub fn mark_interrupted(&mut self) {
        self.drop_empty_answer();
        self.interrupt_tools();
        self.push(Block::Notice("interrupted".into()));
    }

    /// Marks tools still running as interrupted (the turn ended under them).
    fn interrupt_tools(&mut self) {
        self.children.clear();
        for (i, b) in self.blocks.iter_mut().enumerate() {
            if let Block::Tool { state, .. } = b {
                if *state == ToolState::Running {
                    *state = ToolState::Failed("interrupted".into());
                    self.cache[i] = None;
                }
            }
        }
    }

    /// Advances spinners; true when a running tool needs a redraw.
    pub fn tick(&mut self) -> bool {
        self.spinner = (self.spinner + 1) % SPINNER.len();
        let mut any = false;
        for (i, b) in self.blocks.iter().enumerate() {
            if matches!(
                b,
                Block::Tool {
                    state: ToolState::Running,
                    ..
                }
            ) {
                self.cache[i] = None;
                any = true;
            }
        }
        any
    }

    /// The current spinner frame.
    pub fn spinner_frame(&self) -> char {
        SPINNER[self.spinner % SPINNER.len()]
    }

    /// Shows or folds reasoning blocks.
    pub fn toggle_reasoning(&mut self) {
        self.show_reasoning = !self.show_reasoning;
        for (i, b) in self.blocks.iter().enumerate() {
            if matches!(b, Block::Reasoning(_)) {
                self.cache[i] = None;
            }
        }
    }

    /// Lines scrolled up from the bottom (0 follows the newest line).
    pub fn scroll_offset(&self) -> usize {
        self.scroll
    }

    /// Scrolls by `lines` (positive = back toward older lines), clamped to
    /// the content laid out last.
    pub fn scroll(&mut self, lines: isize) {
        let next = self.scroll.saturating_add_signed(lines);
        self.scroll = next.min(self.last_total);
    }

    /// Back to the newest line.
    pub fn scroll_to_bottom(&mut self) {
        self.scroll = 0;
    }

    fn block_lines(&self, block: &Block, width: usize, pal: &Palette) -> Vec<StyledLine> {
        let indent = [Span::new(BODY_INDENT, pal.fg)];
        let body_opts = WrapOpts {
            first_prefix: &indent,
            cont_prefix: &indent,
            ..WrapOpts::default()
        };
        let label = |text: &str, fg| {
            let span = Span {
                bold: true,
                ..Span::new(text, fg)
            };
            wrap(&[span], width, &WrapOpts::default())
        };
        match block {
            Block::You { text, attachments } => {
                let mut out = label("You", pal.user);
                for line in text.split('\n') {
                    out.extend(wrap(&[Span::new(line, pal.fg)], width, &body_opts));
                }
                if !attachments.is_empty() {
                    let note = format!("+ {}", attachments.join(" · "));
                    out.extend(wrap(&[Span::new(note, pal.dim)], width, &body_opts));
                }
                out
            }
            // Until its first token an answer shows nothing: reasoning that
            // streams first then sits above the labelled answer, not under
            // an empty label.
            Block::Assistant(text) if text.is_empty() => Vec::new(),
            Block::Assistant(text) => {
                let mut out = label("koi", pal.accent);
                let inner = width.saturating_sub(BODY_INDENT.len());
                let lines =
                    markdown::render_with(&mut self.markdown.borrow_mut(), text, inner, pal);
                for mut line in lines {
                    if inner > 0 {
                        line.spans.insert(0, Span::new(BODY_INDENT, pal.fg));
                        line.margin += BODY_INDENT.len();
                    }
                    out.push(line);
                }
                out
            }
            Block::Reasoning(text) => {
                let chars = text.chars().count();
                if self.show_reasoning {
                    let mut out = wrap(
                        &[Span::new("▾ reasoning", pal.dim)],
                        width,
                        &WrapOpts::default(),
                    );
                    for line in text.split('\n') {
                        let span = Span {
                            italic: true,
                            ..Span::new(line, pal.dim)
                        };
                        out.extend(wrap(&[span], width, &body_opts));
                    }
                    out
                } else {
                    let head = format!("▸ reasoning ({chars} chars)");
                    wrap(&[Span::new(head, pal.dim)], width, &WrapOpts::default())
                }
            }
            Block::Tool {
                id,
                name,
                args,
                state,
            } => {
                let spans = match state {
                    ToolState::Running => {
                        let mut spans = vec![
                            Span::new(format!("{} ", self.spinner_frame()), pal.warning),
                            Span::new(name.clone(), pal.fg),
                        ];
                        if !args.is_empty() {
                            spans.push(Span::new(format!(" {args}"), pal.dim));
                        }
                        if let Some(p) = self.progress.get(id) {
                            spans.push(Span::new(format!(" · {p}"), pal.warning));
                        }
                        spans
                    }
                    ToolState::Done(preview) => vec![
                        Span::new("✓ ", pal.success),
                        Span::new(format!("{name} → "), pal.fg),
                        Span::new(preview.clone(), pal.dim),
                    ],
                    ToolState::Failed(err) => vec![
                        Span::new("✗ ", pal.error),
                        Span::new(format!("{name}: "), pal.fg),
                        Span::new(err.clone(), pal.error),
                    ],
                };
                let hang = [Span::new("  ", pal.fg)];
                let opts = WrapOpts {
                    cont_prefix: &hang,
                    ..WrapOpts::default()
                };
                let mut out = wrap(&spans, width, &opts);
                if let (ToolState::Running, Some(steps)) = (state, self.children.get(id)) {
                    out.extend(nested_lines(steps, width, pal));
                }
                out
            }
            Block::Error(text) => text
                .split('\n')
                .flat_map(|l| {
                    wrap(
                        &[Span::new(format!("✗ {l}"), pal.error)],
                        width,
                        &WrapOpts::default(),
                    )
                })
                .collect(),
            Block::Notice(text) => text
                .split('\n')
                .flat_map(|l| {
                    let span = Span {
                        italic: true,
                        ..Span::new(l, pal.dim)
                    };
                    wrap(&[span], width, &WrapOpts::default())
                })
                .collect(),
        }
    }

    /// Every line of the conversation at `width`, blocks separated by a
    /// blank line. Unchanged blocks come from the cache.
    pub fn lines(&mut self, width: usize, pal: &Palette) -> Vec<StyledLine> {
        self.refresh(width, pal);
        self.line_refs().0.into_iter().cloned().collect()
    }

    /// Lays out every block whose cached layout is stale.
    fn refresh(&mut self, width: usize, pal: &Palette) {
        if self.cache_palette.as_ref() != Some(pal) {
            self.cache.iter_mut().for_each(|c| *c = None);
            self.cache_palette = Some(*pal);
        }
        for i in 0..self.blocks.len() {
            if !self.is_cached(i, width) {
                let block = &self.blocks[i];
                let mut lines = self.block_lines(block, width, pal);
                let mut pictures = Vec::new();
                if let Block::Assistant(text) = block {
                    if !text.is_empty() {
                        let indent = BODY_INDENT.len();
                        self.pictures
                            .lay_out(text, width, indent, pal, &mut lines, &mut pictures);
                    }
                }
                self.cache[i] = Some(Laid {
                    width,
                    lines,
                    pictures,
                });
            }
        }
    }

    /// The cached lines in order, borrowed so a frame copies only what it
    /// shows, and the pictures drawn over them with their first lines.
    fn line_refs(&self) -> (Vec<&StyledLine>, Vec<(usize, &LaidPicture)>) {
        let mut out = Vec::new();
        let mut pictures = Vec::new();
        for (i, cached) in self.cache.iter().enumerate() {
            // A block with nothing to show (an answer not yet begun) takes
            // no room, not even its separator.
            let Some(laid) = cached.as_ref().filter(|l| !l.lines.is_empty()) else {
                continue;
            };
            if !out.is_empty() && !self.is_compact(i) {
                out.push(&BLANK);
            }
            let first = out.len();
            pictures.extend(laid.pictures.iter().map(|p| (first + p.line, p)));
            out.extend(laid.lines.iter());
        }
        (out, pictures)
    }

    /// Tool lines and reasoning sit tight under what precedes them.
    fn is_compact(&self, i: usize) -> bool {
        let prev_compact = matches!(
            self.blocks.get(i.wrapping_sub(1)),
            Some(Block::Tool { .. } | Block::Reasoning(_))
        );
        matches!(self.blocks[i], Block::Tool { .. }) && prev_compact
    }

    /// The `height` lines to show at `width`, honouring (and clamping) the
    /// scroll offset.
    pub fn view(&mut self, width: usize, height: usize, pal: &Palette) -> Vec<StyledLine> {
        self.refresh(width, pal);
        let (all, pictures) = self.line_refs();
        let max_scroll = all.len().saturating_sub(height);
        let end = all.len() - self.scroll.min(max_scroll);
        let start = end.saturating_sub(height);
        let shown = all[start..end].iter().map(|l| (*l).clone()).collect();
        let shown_pictures = pictures
            .into_iter()
            .filter(|(line, p)| *line < end && line + p.rows > start)
            .map(|(line, p)| ShownPicture {
                row: line as isize - start as isize,
                picture: p.clone(),
            })
            .collect();
        self.shown_pictures = shown_pictures;
        self.view_start = start;
        self.last_total = max_scroll;
        self.scroll = self.scroll.min(max_scroll);
        shown
    }

    /// The pictures the last [`Conversation::view`] showed, placed from its
    /// first line.
    pub fn shown_pictures(&self) -> &[ShownPicture] {
        &self.shown_pictures
    }

    /// The index of the first line the last [`Conversation::view`] showed
    /// (what the mouse points at on its first row).
    pub fn view_start(&self) -> usize {
        self.view_start
    }

    /// True when a layout at `width` is cached for block `i` (tests and
    /// profiling).
    pub fn is_cached(&self, i: usize, width: usize) -> bool {
        matches!(self.cache.get(i), Some(Some(laid)) if laid.width == width)
    }
}

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;

/// A running subagent's latest steps, one line each under its tool line.
fn nested_lines(steps: &Steps, width: usize, pal: &Palette) -> Vec<StyledLine> {
    let (hidden, shown) = steps.shown();
    let mut out = Vec::new();
    let opts = WrapOpts::default();
    if hidden > 0 {
        let more = format!("  │ … {hidden} earlier");
        out.extend(wrap(&[Span::new(more, pal.dim)], width, &opts));
    }
    for (mark, text) in shown {
        let spans = [
            Span::new(format!("  │ {} ", mark.glyph()), pal.dim),
            Span::new(text.to_string(), pal.dim),
        ];
        out.extend(wrap(&spans, width, &opts));
    }
    out
}
