//! What shell integration tells us: the working directory (OSC 7) and the
//! last command with its output (OSC 133 marks), captured as text when the
//! command ends so later scrolling cannot lose it.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::Term;

use super::osc_scan::ShellMark;

/// Output kept from the last command; its tail matters most.
const MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// The last finished command, as the shell reported it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastCommand {
    /// The command line the user ran.
    pub command: String,
    /// What it printed (the tail, if it printed a lot).
    pub output: String,
    pub exit_code: Option<i32>,
}

#[derive(Default)]
pub struct ShellState {
    pub cwd: Option<String>,
    pub last_command: Option<LastCommand>,
    /// Where the current command line / output began, as lines counted from
    /// the top of the scrollback, with the column.
    command_start: Option<(i64, usize)>,
    output_start: Option<(i64, usize)>,
    command: String,
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

impl ShellState {
    pub fn mark<T>(&mut self, term: &Term<T>, mark: &ShellMark) {
        match mark {
            ShellMark::PromptStart => {
                self.command_start = None;
                self.output_start = None;
            }
            ShellMark::CommandStart => self.command_start = Some(absolute_cursor(term)),
            ShellMark::OutputStart => {
                let here = absolute_cursor(term);
                self.command = self
                    .command_start
                    .map(|start| text_between(term, start, here).trim().to_owned())
                    .unwrap_or_default();
                self.output_start = Some(here);
            }
            ShellMark::CommandEnd(exit_code) => {
                let Some(start) = self.output_start.take() else {
                    return;
                };
                let mut output = text_between(term, start, absolute_cursor(term));
                if output.len() > MAX_OUTPUT_BYTES {
                    let mut cut = output.len() - MAX_OUTPUT_BYTES;
                    while !output.is_char_boundary(cut) {
                        cut += 1;
                    }
                    output = output.split_off(cut);
                }
                self.last_command = Some(LastCommand {
                    command: std::mem::take(&mut self.command),
                    output: output.trim_end().to_owned(),
                    exit_code: *exit_code,
                });
            }
        }
    }
}
