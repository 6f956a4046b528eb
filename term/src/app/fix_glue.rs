//! Fixing a failed command: the small "⏎ fix (Ctrl+Shift+E)" hint drawn
//! on the last line of a command that failed, and the key that opens the
//! panel with the command, its output and its exit status attached (as
//! untrusted data) and asks the model for the cause and a fix. Ctrl+Y then
//! puts the fix at the prompt, as for any answer.
//!
//! The hint shows while the block is fresh (only a new prompt came after
//! it): the next command, an empty line, Esc or the key itself dismiss it.
//! Esc is taken while the hint shows, so it does not reach the shell as
//! the start of a Meta key.

use ai_chat_engine::FailedCommand;
use render::{Color, OverlayLayer, OverlayRect, Part, Span, StyledLine};

use super::keyboard::Translated;
use super::overlay_glue::Captured;
use super::App;
use crate::config::Action;
use koi_terminal::input::{Key, KeyAction};

/// Blank columns between the line's text and the hint.
const HINT_GAP: usize = 2;

impl App {
    /// The hint over the focused pane, when its last command failed.
    pub(super) fn fix_hint_layer(&self) -> Option<OverlayLayer> {
        let t = self.terminal.as_ref()?;
        let config = &self.config().fix;
        if !config.hint || self.overlay.is_open() {
            return None;
        }
        // No key, no hint: it would promise something nothing does.
        let chord = self
            .options
            .loaded
            .bindings
            .chords_for(Action::FixLastCommand)
            .next()?;
        let pane = t.workspace.focused();
        let block = pane.session.fresh_block()?;
        if !block.wants_fix(&config.ignore) {
            return None;
        }
        let row = block.row?;
        let cols = pane.rect.cols;
        let key = format!("({chord})");
        let label = render::fit(&[Part::new("⏎ fix", 2), Part::new(&key, 1)], " ", cols).join(" ");
        let width = unicode_width::UnicodeWidthStr::width(label.as_str());
        // After the line's text when it fits, else at the right edge.
        let col = if block.text_cols + HINT_GAP + width <= cols {
            block.text_cols + HINT_GAP
        } else {
            cols.saturating_sub(width)
        };
        Some(OverlayLayer {
            rect: OverlayRect::Cells {
                col: pane.rect.col + col,
                row: pane.rect.row + row,
                cols: width.min(cols),
                rows: 1,
            },
            background: Color::Rgb(t.display.chrome.hint_background),
            border: None,
            padding_px: 0,
            lines: vec![StyledLine::new(vec![Span::new(
                label,
                Color::Rgb(t.display.chrome.hint_foreground),
            )])],
            pictures: Vec::new(),
        })
    }

    /// Esc while the hint shows dismisses it; returns whether it took the key.
    pub(super) fn fix_hint_key(&mut self, translated: &Translated) -> bool {
        let Translated::Key(key) = translated else {
            return false;
        };
        if key.key != Key::Escape || !key.mods.is_empty() || self.fix_hint_layer().is_none() {
            return false;
        }
        if key.action == KeyAction::Press {
            if let Some(t) = &self.terminal {
                t.session().dismiss_fresh_block();
            }
            self.redraw();
        }
        true
    }

    /// Ctrl+Shift+E: open the panel and ask why the last command failed.
    pub(super) fn fix_last_command(&mut self) {
        let Some(t) = &self.terminal else { return };
        let session = t.session();
        session.dismiss_fresh_block();
        let failed = session
            .last_command()
            .filter(|last| last.exit_code != Some(0))
            .map(|last| FailedCommand::new(&last.command, &last.output, last.exit_code));
        let Some(failed) = failed else {
            if !self.overlay.is_open() {
                self.toggle_overlay();
            }
            self.overlay.notice(
                "no failed command to fix: koi sees commands through its shell integration \
                 (assets/shell), and the last one it saw succeeded or none ran yet",
            );
            self.redraw();
            return;
        };
        let input = failed.user_input();
        self.captured = Captured::of(input.attachments, session.current_dir());
        self.overlay.set_attachments(self.captured.chips());
        self.overlay.open();
        let action = self.overlay.ask(input.text);
        self.with_overlay(|ctx| ctx.act(action));
    }
}
