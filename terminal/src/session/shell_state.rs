//! What shell integration tells us: the working directory (OSC 7) and the
//! command blocks (OSC 133 marks): the last command that ran, with its
//! output and exit status, captured as text when it ends so later
//! scrolling cannot lose it.
//!
//! A command *ran* only when a `C` mark (output starts) came after the
//! prompt and before the `D` (it ended). A `D` without a `C` is an empty
//! line, a Ctrl+C at the prompt, or the first prompt: it records nothing,
//! and it ends the "just finished" state of the block before it, as any
//! later `C` does (see [`ShellState::fresh_block`]).

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::Term;

use super::osc_scan::ShellMark;

/// Output kept from the last command; its tail matters most.
const MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// How many rows above where a block's last line should be it is looked
/// for: a full scrollback moves text up without growing the history, so
/// the line count alone drifts by the prompt's own lines.
const LOCATE_SLACK_ROWS: usize = 4;

/// Exit statuses that are no failure: 130 is Ctrl+C (SIGINT), 148 a job
/// stopped with Ctrl+Z (SIGTSTP).
const NOT_FAILURES: &[i32] = &[130, 148];

/// The last finished command, as the shell reported it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastCommand {
    /// The command line the user ran.
    pub command: String,
    /// What it printed (the tail, if it printed a lot).
    pub output: String,
    pub exit_code: Option<i32>,
}

impl LastCommand {
    /// Whether this block deserves the "fix" hint (see [`wants_fix`]).
    pub fn wants_fix(&self, ignore: &[String]) -> bool {
        wants_fix(&self.command, self.exit_code, ignore)
    }
}

/// Whether a block deserves the "fix" hint: it failed, was not
/// interrupted or suspended, and its command is not one the user ignores
/// (`[fix] ignore`).
fn wants_fix(command: &str, exit_code: Option<i32>, ignore: &[String]) -> bool {
    let failed = exit_code.is_some_and(|c| c != 0 && !NOT_FAILURES.contains(&c));
    failed && !command.trim().is_empty() && !is_ignored(command, ignore)
}

/// Whether `command` starts with the words of one of `ignore`'s entries,
/// after any leading `NAME=value` assignments: `grep` ignores `grep -r x .`
/// and `LC_ALL=C grep x`, `git diff` ignores `git diff --stat` but not
/// `git push`.
pub fn is_ignored(command: &str, ignore: &[String]) -> bool {
    let words: Vec<&str> = command
        .split_whitespace()
        .skip_while(|w| is_assignment(w))
        .collect();
    ignore.iter().any(|entry| {
        let want: Vec<&str> = entry.split_whitespace().collect();
        !want.is_empty() && words.len() >= want.len() && words[..want.len()] == want[..]
    })
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Where a finished block's last line is on the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BlockEnd {
    /// The line, counted from the top of the scrollback.
    line: i64,
    /// Its text then (trimmed), to find it again.
    text: String,
}

/// The block that just finished, for the hint: nothing has happened in
/// the shell since but a new prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshBlock {
    pub command: String,
    pub exit_code: Option<i32>,
    /// The viewport row of the block's last line, when it is on screen.
    pub row: Option<usize>,
    /// The columns that row's text takes.
    pub text_cols: usize,
}

impl FreshBlock {
    /// Whether this block deserves the "fix" hint (see [`wants_fix`]).
    pub fn wants_fix(&self, ignore: &[String]) -> bool {
        wants_fix(&self.command, self.exit_code, ignore)
    }
}

#[derive(Default)]
pub struct ShellState {
    pub cwd: Option<String>,
    pub last_command: Option<LastCommand>,
    /// Where the current command line / output began, as lines counted from
    /// the top of the scrollback, with the column, and the text to find
    /// them again by (see [`Anchor`]).
    command_start: Option<Anchor>,
    output_start: Option<Anchor>,
    command: String,
    /// Set when a block ends; cleared by the next `C` or `D` and by
    /// [`ShellState::dismiss`].
    fresh: Option<BlockEnd>,
}

/// A grid position with the text before it (on its row, or the whole row
/// above when it is at column 0). Once the scrollback is full, output
/// moves text up without growing the history, so a line number taken
/// earlier points too low by the lines scrolled since; the text finds the
/// position again.
#[derive(Clone, Debug)]
struct Anchor {
    at: (i64, usize),
    text: String,
}

impl Anchor {
    fn here<T>(term: &Term<T>) -> Self {
        let at = absolute_cursor(term);
        Self {
            at,
            text: Self::text_at(term, at),
        }
    }

    fn text_at<T>(term: &Term<T>, (line, col): (i64, usize)) -> String {
        if col == 0 {
            return line_text(term, line - 1);
        }
        let text: String = line_text(term, line).chars().take(col).collect();
        text.trim_end().to_owned()
    }

    /// Where the position is now: the first place at or above where it
    /// was whose text still reads the same; where it was when none does.
    fn now<T>(&self, term: &Term<T>) -> (i64, usize) {
        let (line, col) = self.at;
        (0..=line.max(0))
            .map(|up| (line - up, col))
            .find(|&at| Self::text_at(term, at) == self.text)
            .unwrap_or(self.at)
    }
}

fn absolute_cursor<T>(term: &Term<T>) -> (i64, usize) {
    let grid = term.grid();
    let point = grid.cursor.point;
    (
        grid.history_size() as i64 + i64::from(point.line.0),
        point.column.0,
    )
}

fn text_between<T>(term: &Term<T>, start: (i64, usize), end: (i64, usize)) -> String {
    let grid = term.grid();
    let history = grid.history_size() as i64;
    let to_point = |(line, col): (i64, usize)| {
        let rel = (line - history).clamp(-history, grid.screen_lines() as i64 - 1);
        Point::new(Line(rel as i32), Column(col.min(grid.columns() - 1)))
    };
    let (start, end) = (to_point(start), to_point(end));
    if end <= start {
        return String::new();
    }
    term.bounds_to_string(start, end)
}

/// The text of the line `line` (counted from the top of the scrollback),
/// trimmed; empty when it is not in the grid.
fn line_text<T>(term: &Term<T>, line: i64) -> String {
    let grid = term.grid();
    let rel = line - grid.history_size() as i64;
    if rel < -(grid.history_size() as i64) || rel >= grid.screen_lines() as i64 {
        return String::new();
    }
    let row = &grid[Line(rel as i32)];
    let text: String = (0..grid.columns()).map(|c| row[Column(c)].c).collect();
    text.trim_end().to_owned()
}

impl ShellState {
    pub fn mark<T>(&mut self, term: &Term<T>, mark: &ShellMark) {
        match mark {
            ShellMark::PromptStart => {
                self.command_start = None;
                self.output_start = None;
            }
            ShellMark::CommandStart => self.command_start = Some(Anchor::here(term)),
            ShellMark::OutputStart => {
                self.fresh = None;
                let here = absolute_cursor(term);
                let start = self.command_start.as_ref().map(|a| a.now(term));
                if let (Some(anchor), Some(start)) = (&mut self.command_start, start) {
                    anchor.at = start;
                }
                self.command = start
                    .map(|start| text_between(term, start, here).trim().to_owned())
                    .unwrap_or_default();
                self.output_start = Some(Anchor::here(term));
            }
            ShellMark::CommandEnd(exit_code) => {
                self.fresh = None;
                let Some(anchor) = self.output_start.take() else {
                    return;
                };
                let start = anchor.now(term);
                // The command line sits just above the output.
                let shift = anchor.at.0 - start.0;
                let end = absolute_cursor(term);
                let mut output = text_between(term, start, end);
                if output.len() > MAX_OUTPUT_BYTES {
                    let mut cut = output.len() - MAX_OUTPUT_BYTES;
                    while !output.is_char_boundary(cut) {
                        cut += 1;
                    }
                    output = output.split_off(cut);
                }
                // The cursor at column 0 sits below the output's last line;
                // no output at all leaves the command line as the last.
                // Blank lines at the end are skipped, down to the command line.
                let first = self
                    .command_start
                    .as_ref()
                    .map_or(start.0, |a| (a.at.0 - shift).min(start.0));
                let mut last = if end.1 == 0 { end.0 - 1 } else { end.0 };
                while last > first && line_text(term, last).is_empty() {
                    last -= 1;
                }
                let last = last.max(first);
                self.fresh = Some(BlockEnd {
                    line: last,
                    text: line_text(term, last),
                });
                self.last_command = Some(LastCommand {
                    command: std::mem::take(&mut self.command),
                    output: output.trim_end().to_owned(),
                    exit_code: *exit_code,
                });
            }
        }
    }

    /// Forget the fresh block (the user dismissed its hint).
    pub fn dismiss(&mut self) {
        self.fresh = None;
    }

    /// The block that just finished, if nothing but a prompt came after
    /// it, with where its last line is shown now.
    pub fn fresh_block<T>(&self, term: &Term<T>) -> Option<FreshBlock> {
        let end = self.fresh.as_ref()?;
        let last = self.last_command.as_ref()?;
        let grid = term.grid();
        let offset = grid.display_offset() as i64;
        let found = (0..=LOCATE_SLACK_ROWS as i64)
            .map(|up| end.line - up)
            .find(|&line| !end.text.is_empty() && line_text(term, line) == end.text);
        let row = found.and_then(|line| {
            let row = line - grid.history_size() as i64 + offset;
            usize::try_from(row)
                .ok()
                .filter(|&r| r < grid.screen_lines())
        });
        Some(FreshBlock {
            command: last.command.clone(),
            exit_code: last.exit_code,
            row,
            text_cols: unicode_width::UnicodeWidthStr::width(end.text.as_str()),
        })
    }
}

#[cfg(test)]
#[path = "shell_state_tests.rs"]
mod tests;
