//! The overlay's multi-line input box: editing keys, paste, history and IME
//! preedit, and its layout (wrapped to a width, with the cursor's cell).

use render::{Span, StyledLine};

use super::style::Palette;
use super::wrap::{char_width, str_width};
use koi_terminal::input::{Key, KeyEvent, Mods};

/// Submitted messages kept for Up/Down; plenty for a chat session while
/// bounding memory.
const HISTORY_LIMIT: usize = 200;
/// The prompt drawn before the first line.
const PROMPT: &str = "› ";

/// What an edit key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Not an editing key; the caller may use it.
    Unhandled,
    /// The text, cursor or preedit changed (or the key was consumed).
    Changed,
    /// Enter: the text, which has been cleared and added to history.
    Submit(String),
}

/// A multi-line text editor. Lines never contain `\n`; the cursor is a
/// byte offset into its line, always on a char boundary.
#[derive(Debug, Clone)]
pub struct InputBox {
    lines: Vec<String>,
    row: usize,
    col: usize,
    history: Vec<String>,
    /// Position while browsing history, and the draft it replaced.
    browsing: Option<(usize, String)>,
    preedit: Option<String>,
}

impl Default for InputBox {
    fn default() -> Self {
        Self {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            history: Vec::new(),
            browsing: None,
            preedit: None,
        }
    }
}

impl InputBox {
    /// An empty box.
    pub fn new() -> Self {
        Self::default()
    }

    /// The text, lines joined by `\n`.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// True when there is no text (preedit aside).
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// The cursor as (line, byte offset).
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    /// Replaces the text, cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.insert(text);
    }

    /// Inserts text at the cursor (`\r\n` and `\r` become newlines; other
    /// control characters except tabs are dropped).
    pub fn insert(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        for ch in text.chars() {
            if ch == '\n' {
                self.newline();
            } else if !ch.is_control() || ch == '\t' {
                self.lines[self.row].insert(self.col, ch);
                self.col += ch.len_utf8();
            }
        }
    }

    /// Pastes text (same as typing it, newlines included).
    pub fn paste(&mut self, text: &str) {
        self.browsing = None;
        self.insert(text);
    }

    /// Sets or clears the IME preedit drawn at the cursor.
    pub fn set_preedit(&mut self, preedit: Option<String>) {
        self.preedit = preedit.filter(|p| !p.is_empty());
    }

    /// The submitted messages, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Clears the text (history stays).
    pub fn clear(&mut self) {
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.browsing = None;
    }

    fn newline(&mut self) {
        let tail = self.lines[self.row].split_off(self.col);
        self.row += 1;
        self.lines.insert(self.row, tail);
        self.col = 0;
    }

    fn prev_boundary(&self) -> usize {
        let line = &self.lines[self.row];
        line[..self.col]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        let line = &self.lines[self.row];
        line[self.col..]
            .chars()
            .next()
            .map_or(self.col, |c| self.col + c.len_utf8())
    }

    /// Display column of the cursor within its line.
    fn display_col(&self) -> usize {
        str_width(&self.lines[self.row][..self.col])
    }

    /// Moves to `row`, as near display column `want` as the line allows.
    fn goto_row(&mut self, row: usize, want: usize) {
        self.row = row;
        let mut w = 0;
        self.col = self.lines[row].len();
        for (i, ch) in self.lines[row].char_indices() {
            if w >= want {
                self.col = i;
                break;
            }
            w += char_width(ch);
        }
    }

    fn history_prev(&mut self) -> bool {
        let idx = match &self.browsing {
            Some((0, _)) | None if self.history.is_empty() => return false,
            Some((0, _)) => return true,
            Some((i, _)) => i - 1,
            None => self.history.len() - 1,
        };
        let draft = match self.browsing.take() {
            Some((_, d)) => d,
            None => self.text(),
        };
        let entry = self.history[idx].clone();
        self.set_text(&entry);
        self.browsing = Some((idx, draft));
        true
    }

    fn history_next(&mut self) -> bool {
        let Some((idx, draft)) = self.browsing.take() else {
            return false;
        };
        if idx + 1 < self.history.len() {
            let entry = self.history[idx + 1].clone();
            self.set_text(&entry);
            self.browsing = Some((idx + 1, draft));
        } else {
            self.set_text(&draft);
        }
        true
    }

    fn delete_word_back(&mut self) {
        let line = &self.lines[self.row];
        let before = &line[..self.col];
        let trimmed = before.trim_end();
        let start = trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        self.lines[self.row].replace_range(start..self.col, "");
        self.col = start;
    }

    /// Handles an editing key. `text` is what the key types (IME, dead
    /// keys); without it a `Key::Char` types its character.
    pub fn handle_key(&mut self, ev: &KeyEvent, text: Option<&str>) -> Edit {
        let m = ev.mods;
        let ctrl_only = m.ctrl && !m.alt && !m.logo;
        match &ev.key {
            Key::Enter if m.shift || m.alt => self.newline(),
            Key::Enter if m == Mods::NONE => {
                let text = self.text();
                if text.trim().is_empty() {
                    return Edit::Changed;
                }
                if self.history.last() != Some(&text) {
                    self.history.push(text.clone());
                    if self.history.len() > HISTORY_LIMIT {
                        self.history.remove(0);
                    }
                }
                self.clear();
                return Edit::Submit(text);
            }
            Key::Char(c) if ctrl_only && !m.shift => match c.to_ascii_lowercase() {
                'a' => self.col = 0,
                'e' => self.col = self.lines[self.row].len(),
                'u' => {
                    self.lines[self.row].replace_range(..self.col, "");
                    self.col = 0;
                }
                'k' => {
                    if self.col == self.lines[self.row].len() && self.row + 1 < self.lines.len() {
                        let next = self.lines.remove(self.row + 1);
                        self.lines[self.row].push_str(&next);
                    } else {
                        self.lines[self.row].truncate(self.col);
                    }
                }
                'w' => self.delete_word_back(),
                _ => return Edit::Unhandled,
            },
            Key::Char(c) if !m.ctrl && !m.alt && !m.logo => {
                self.browsing = None;
                match text {
                    Some(t) => self.insert(t),
                    None => self.insert(c.encode_utf8(&mut [0; 4])),
                }
            }
            Key::Backspace if !m.ctrl && !m.alt => {
                if self.col > 0 {
                    let at = self.prev_boundary();
                    self.lines[self.row].replace_range(at..self.col, "");
                    self.col = at;
                } else if self.row > 0 {
                    let line = self.lines.remove(self.row);
                    self.row -= 1;
                    self.col = self.lines[self.row].len();
                    self.lines[self.row].push_str(&line);
                }
            }
            Key::Backspace => self.delete_word_back(),
            Key::Delete => {
                if self.col < self.lines[self.row].len() {
                    let to = self.next_boundary();
                    self.lines[self.row].replace_range(self.col..to, "");
                } else if self.row + 1 < self.lines.len() {
                    let next = self.lines.remove(self.row + 1);
                    self.lines[self.row].push_str(&next);
                }
            }
            Key::Left => {
                if self.col > 0 {
                    self.col = self.prev_boundary();
                } else if self.row > 0 {
                    self.row -= 1;
                    self.col = self.lines[self.row].len();
                }
            }
            Key::Right => {
                if self.col < self.lines[self.row].len() {
                    self.col = self.next_boundary();
                } else if self.row + 1 < self.lines.len() {
                    self.row += 1;
                    self.col = 0;
                }
            }
            Key::Home => self.col = 0,
            Key::End => self.col = self.lines[self.row].len(),
            Key::Up => {
                if self.row > 0 && (self.browsing.is_none() || !self.is_empty()) {
                    let want = self.display_col();
                    self.goto_row(self.row - 1, want);
                } else if self.is_empty() || self.browsing.is_some() {
                    self.history_prev();
                } else {
                    self.col = 0;
                }
            }
            Key::Down => {
                if self.row + 1 < self.lines.len() {
                    let want = self.display_col();
                    self.goto_row(self.row + 1, want);
                } else if self.browsing.is_some() {
                    self.history_next();
                } else {
                    self.col = self.lines[self.row].len();
                }
            }
            _ => return Edit::Unhandled,
        }
        Edit::Changed
    }

    /// The box laid out `width` cells wide (hard-wrapped so every cell maps
    /// to one place), with the preedit at the cursor, and the cursor's
    /// (column, line) within those lines.
    pub fn layout(&self, width: usize, pal: &Palette) -> (Vec<StyledLine>, (usize, usize)) {
        let (lines, cursor, _) = self.lay_out(width, pal);
        (lines, cursor)
    }

    /// Puts the caret where a click on laid-out `line`, cell `col` of a
    /// `width`-wide layout lands: before the character drawn there, at the
    /// end of the line when the click is past its text.
    pub fn place_caret(&mut self, width: usize, line: usize, col: usize) {
        let (_, _, places) = self.lay_out(width, &Palette::default());
        let on_line = places.iter().filter(|p| p.line == line);
        let place = on_line
            .clone()
            .rfind(|p| p.col <= col)
            .or_else(|| on_line.clone().next())
            .or_else(|| places.last());
        if let Some(p) = place {
            self.row = p.row;
            self.col = p.byte;
            self.browsing = None;
        }
    }

    /// The layout, the cursor cell, and where each character (and each
    /// line's end) landed, for mapping clicks back to text.
    fn lay_out(
        &self,
        width: usize,
        pal: &Palette,
    ) -> (Vec<StyledLine>, (usize, usize), Vec<Place>) {
        let width = width.max(1);
        let indent = if width > str_width(PROMPT) {
            str_width(PROMPT)
        } else {
            0
        };
        let mut lay = Layout {
            out: Vec::new(),
            cur: Vec::new(),
            w: 0,
            width,
            indent,
            pal,
        };
        let mut cursor = (indent, 0);
        let mut places = Vec::new();
        for (r, line) in self.lines.iter().enumerate() {
            let prefix = match (indent, r) {
                (0, _) => "",
                (_, 0) => PROMPT,
                _ => "  ",
            };
            lay.cur = vec![Span::new(prefix, pal.accent)];
            lay.w = indent;
            let at_cursor = |i: usize| r == self.row && i == self.col;
            for (i, ch) in line.char_indices() {
                if at_cursor(i) {
                    cursor = lay.preedit(self.preedit.as_deref());
                }
                if let Some((at_line, col)) = lay.push(if ch == '\t' { ' ' } else { ch }, false) {
                    places.push(Place {
                        line: at_line,
                        col,
                        row: r,
                        byte: i,
                    });
                }
            }
            places.push(Place {
                line: lay.out.len(),
                col: lay.w,
                row: r,
                byte: line.len(),
            });
            if at_cursor(line.len()) {
                cursor = lay.preedit(self.preedit.as_deref());
                if lay.w >= width {
                    lay.break_line();
                    cursor = (lay.w, lay.out.len());
                }
            }
            let last = std::mem::take(&mut lay.cur);
            lay.out.push(StyledLine::new(last));
        }
        (lay.out, cursor, places)
    }
}

/// Where one character of the text (or a line's end) was laid out.
#[derive(Debug, Clone, Copy)]
struct Place {
    /// Laid-out line and cell it starts at.
    line: usize,
    col: usize,
    /// Text line and byte offset it stands for.
    row: usize,
    byte: usize,
}

/// Hard-wrapping state while the box is laid out.
struct Layout<'a> {
    out: Vec<StyledLine>,
    cur: Vec<Span>,
    w: usize,
    width: usize,
    indent: usize,
    pal: &'a Palette,
}

impl Layout<'_> {
    fn break_line(&mut self) {
        let done = std::mem::take(&mut self.cur);
        self.out.push(StyledLine::new(done));
        self.cur
            .push(Span::new(" ".repeat(self.indent), self.pal.fg));
        self.w = self.indent;
    }

    /// Lays out `ch`; returns the (line, cell) it starts at, `None` when
    /// it cannot be drawn.
    fn push(&mut self, ch: char, under: bool) -> Option<(usize, usize)> {
        if ch.is_control() {
            return None;
        }
        let cw = char_width(ch);
        if cw > self.width - self.indent {
            return None;
        }
        if self.w + cw > self.width {
            self.break_line();
        }
        let at = (self.out.len(), self.w);
        match self.cur.last_mut() {
            Some(s) if s.underline == under && s.fg == self.pal.fg => s.text.push(ch),
            _ => self.cur.push(Span {
                underline: under,
                ..Span::new(ch.to_string(), self.pal.fg)
            }),
        }
        self.w += cw;
        Some(at)
    }

    /// Draws the preedit and returns the cursor cell just after it.
    fn preedit(&mut self, preedit: Option<&str>) -> (usize, usize) {
        for p in preedit.unwrap_or("").chars() {
            let _ = self.push(p, true);
        }
        (self.w, self.out.len())
    }
}

#[cfg(test)]
#[path = "input_box_tests.rs"]
mod tests;
