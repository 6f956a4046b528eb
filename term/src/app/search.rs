//! Scrollback search in one pane: alacritty_terminal's regex DFAs run over
//! the screen and history from the bottom up, a slice of lines at a time,
//! so a search over 100k lines never holds the terminal (or the window)
//! for much longer than [`SCAN_BUDGET`]. A slice is made of steps whose
//! size in lines follows what the last steps cost ([`Pace`]): the clock
//! can only be read between steps, so a step sized for a fraction of the
//! budget is what keeps a slice inside it on a wide window, a slow build
//! or a query that matches every line. Plain text is escaped into a
//! regex; both are case-smart (an upper-case letter makes them
//! case-sensitive).

use std::time::{Duration, Instant};

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::{Dimensions, Scroll};
use alacritty_terminal::index::{Boundary, Column, Direction, Line, Point};
use alacritty_terminal::selection::{Selection, SelectionType};
use alacritty_terminal::term::cell::Flags;
use alacritty_terminal::term::search::{Match, RegexIter, RegexSearch};
use render::Highlight;

use alacritty_terminal::term::Term;

/// How long one slice of a scan may hold the terminal: a small part of a
/// 60 Hz frame, so typing and output stay smooth while it runs.
pub const SCAN_BUDGET: Duration = Duration::from_millis(4);

/// Lines of the first step, before any step was timed: small enough to
/// stay inside the budget in a 500-column window of an unoptimised build.
const FIRST_STEP: i32 = 64;

/// The fewest lines a step covers, so a slice always moves on even when
/// its budget is spent (a zero budget scans this much a slice).
const MIN_STEP: i32 = 8;

/// The most lines a step covers: past this the cost of starting a step is
/// already nothing next to the step, and a cheap stretch of short lines
/// should not grow the step that the next long lines then overrun.
const MAX_STEP: i32 = 4096;

/// A step aims at this share of the budget, so one that runs a few times
/// slower than the last (denser matches, longer lines) still ends the
/// slice near its budget.
const STEP_SHARE: u32 = 4;

/// Past this many matches the count says "N+": a pattern like `.` on a
/// long history would otherwise keep millions of ranges.
const MAX_MATCHES: usize = 100_000;

/// How the query is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    Plain,
    Regex,
}

/// One pane's search: the query, what the scan found so far (newest
/// first) and which match is current.
pub struct Search {
    pub query: String,
    pub kind: QueryKind,
    regex: Option<RegexSearch>,
    /// Why the query is not a regex, when it is not.
    pub error: Option<String>,
    /// Matches found, bottom (newest) first.
    matches: Vec<Match>,
    /// The next line the scan looks at (it moves up), `None` when done.
    next_line: Option<Line>,
    /// Index into `matches`.
    current: Option<usize>,
    /// The user stepped before the scan reached that far: jump on arrival.
    wanted: Option<usize>,
    /// The pane's output count the matches were found in: new output moves
    /// every line, so the scan starts over when it changes.
    pub seen_output: Option<u64>,
    /// What lines cost to scan, learned over this search's steps.
    pace: Pace,
}

/// What the scan's steps have cost so far, per line, and so how many lines
/// the next one may take.
#[derive(Debug, Clone, Copy, Default)]
struct Pace {
    /// Nanoseconds a line took (at least 1), `None` before any step.
    line_nanos: Option<u64>,
}

impl Pace {
    /// Lines for the next step of a slice with `budget`, `left` of it
    /// unspent.
    fn lines(&self, budget: Duration, left: Duration) -> i32 {
        let Some(per_line) = self.line_nanos else {
            return FIRST_STEP;
        };
        let aim = (budget / STEP_SHARE).min(left).as_nanos();
        let lines = aim / u128::from(per_line);
        i32::try_from(lines)
            .unwrap_or(MAX_STEP)
            .clamp(MIN_STEP, MAX_STEP)
    }

    /// Whether even the smallest step still fits in `left`.
    fn fits(&self, left: Duration) -> bool {
        let smallest = self
            .line_nanos
            .unwrap_or(0)
            .saturating_mul(u64::from(MIN_STEP.unsigned_abs()));
        Duration::from_nanos(smallest) <= left
    }

    /// A step of `lines` lines took `took`. A slower step is believed at
    /// once, so the next one shrinks; a faster one only halfway, so one
    /// lucky step does not let the next overrun.
    fn record(&mut self, lines: i32, took: Duration) {
        let lines = u128::from(lines.max(1).unsigned_abs());
        let now = u64::try_from(took.as_nanos() / lines)
            .unwrap_or(u64::MAX)
            .max(1);
        self.line_nanos = Some(match self.line_nanos {
            Some(before) if now < before => before - (before - now) / 2,
            _ => now,
        });
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Search {
    pub fn new() -> Self {
        Self {
            query: String::new(),
            kind: QueryKind::Plain,
            regex: None,
            error: None,
            matches: Vec::new(),
            next_line: None,
            current: None,
            wanted: None,
            seen_output: None,
            pace: Pace::default(),
        }
    }

    /// Start over for the current query (typed, or its kind toggled).
    pub fn restart<T: EventListener>(&mut self, term: &Term<T>) {
        self.matches.clear();
        self.current = None;
        self.wanted = None;
        self.error = None;
        self.regex = None;
        self.next_line = None;
        if self.query.is_empty() {
            return;
        }
        let pattern = match self.kind {
            QueryKind::Plain => escape(&self.query),
            QueryKind::Regex => self.query.clone(),
        };
        match RegexSearch::new(&pattern) {
            Ok(regex) => {
                self.regex = Some(regex);
                self.next_line = Some(term.bottommost_line());
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    pub fn toggle_kind<T: EventListener>(&mut self, term: &Term<T>) {
        self.kind = match self.kind {
            QueryKind::Plain => QueryKind::Regex,
            QueryKind::Regex => QueryKind::Plain,
        };
        self.restart(term);
    }

    /// Whether the scan still has lines to look at.
    pub fn scanning(&self) -> bool {
        self.next_line.is_some()
    }

    /// Scan for up to `budget`; returns whether the view should change
    /// (a first match, or one the user asked for, was found and shown).
    pub fn scan<T: EventListener>(&mut self, term: &mut Term<T>, budget: Duration) -> bool {
        let started = Instant::now();
        let Some(regex) = self.regex.as_mut() else {
            self.next_line = None;
            return false;
        };
        let top = term.topmost_line();
        let mut first = true;
        while let Some(bottom) = self.next_line {
            let left = budget.saturating_sub(started.elapsed());
            // The first step always runs, so every slice moves on.
            if !first && !self.pace.fits(left) {
                break;
            }
            first = false;
            let step_started = Instant::now();
            // A step ends at a line that does not wrap on, so no match
            // is cut in two by the step's edge.
            let mut start = Line(bottom.0 - self.pace.lines(budget, left) + 1).max(top);
            while start > top && wraps(term, Line(start.0 - 1)) {
                start = Line(start.0 - 1);
            }
            let end_point = Point::new(bottom, term.last_column());
            let start_point = Point::new(start, Column(0));
            for found in RegexIter::new(end_point, start_point, Direction::Left, term, regex) {
                if self.matches.len() >= MAX_MATCHES {
                    break;
                }
                self.matches.push(found);
            }
            self.next_line =
                (start > top && self.matches.len() < MAX_MATCHES).then(|| Line(start.0 - 1));
            self.pace
                .record(bottom.0 - start.0 + 1, step_started.elapsed());
        }
        let index = match (self.current, self.wanted) {
            (None, _) if !self.matches.is_empty() => Some(0),
            (_, Some(w)) if w < self.matches.len() => Some(w),
            _ => None,
        };
        match index {
            Some(index) => {
                self.wanted = None;
                self.current = Some(index);
                self.show_current(term);
                true
            }
            None => false,
        }
    }

    /// Step to the next older (`up`) or newer match, scrolling to it.
    pub fn step<T: EventListener>(&mut self, term: &mut Term<T>, up: bool) {
        let n = self.matches.len();
        let Some(current) = self.current else { return };
        let next = if up {
            if current + 1 < n {
                current + 1
            } else if self.scanning() {
                // Not found yet: go there once the scan has it.
                self.wanted = Some(current + 1);
                return;
            } else {
                0
            }
        } else if current == 0 {
            n.saturating_sub(1)
        } else {
            current - 1
        };
        self.current = Some(next);
        self.show_current(term);
    }

    /// Scroll so the current match is in view (centred when it was not).
    fn show_current<T: EventListener>(&self, term: &mut Term<T>) {
        let Some(found) = self.current_match() else {
            return;
        };
        let rows = term.screen_lines() as i32;
        let offset = term.grid().display_offset() as i32;
        let line = found.start().line.0;
        let (top, bottom) = (-offset, -offset + rows - 1);
        if line >= top && found.end().line.0 <= bottom {
            return;
        }
        let wanted = (rows / 2 - line).clamp(0, term.history_size() as i32);
        term.scroll_display(Scroll::Delta(wanted - offset));
    }

    pub fn current_match(&self) -> Option<&Match> {
        self.matches.get(self.current?)
    }

    /// "3/17", "3/17+" while scanning or capped, "no matches".
    pub fn count_text(&self) -> String {
        let more = if self.scanning() || self.matches.len() >= MAX_MATCHES {
            "+"
        } else {
            ""
        };
        match self.current {
            Some(i) => format!("{}/{}{more}", i + 1, self.matches.len()),
            None if self.scanning() => "searching…".to_owned(),
            None if self.query.is_empty() => String::new(),
            None => "no matches".to_owned(),
        }
    }

    /// The cells to highlight in the pane's view now.
    pub fn highlights<T: EventListener>(&self, term: &Term<T>) -> Vec<Highlight> {
        let offset = term.grid().display_offset() as i32;
        let rows = term.screen_lines() as i32;
        let cols = term.columns();
        let (top, bottom) = (-offset, -offset + rows - 1);
        let mut out = Vec::new();
        for (index, found) in self.matches.iter().enumerate() {
            let (start, end) = (*found.start(), *found.end());
            // Newest first: once a match ends above the view, all the
            // rest do too.
            if end.line.0 < top {
                break;
            }
            if start.line.0 > bottom {
                continue;
            }
            let end = expand_wide(term, end);
            for line in start.line.0.max(top)..=end.line.0.min(bottom) {
                let first = if line == start.line.0 {
                    start.column.0
                } else {
                    0
                };
                let last = if line == end.line.0 {
                    end.column.0 + 1
                } else {
                    cols
                };
                out.push(Highlight {
                    row: (line + offset) as usize,
                    start_col: first,
                    end_col: last.min(cols),
                    current: Some(index) == self.current,
                });
            }
        }
        out
    }

    /// Make the current match the terminal's selection.
    pub fn select_current<T: EventListener>(&self, term: &mut Term<T>) -> bool {
        let Some(found) = self.current_match() else {
            return false;
        };
        let mut selection = Selection::new(
            SelectionType::Simple,
            *found.start(),
            alacritty_terminal::index::Side::Left,
        );
        selection.update(
            expand_wide(term, *found.end()),
            alacritty_terminal::index::Side::Right,
        );
        term.selection = Some(selection);
        true
    }
}

impl Default for Search {
    fn default() -> Self {
        Self::new()
    }
}

fn wraps<T: EventListener>(term: &Term<T>, line: Line) -> bool {
    let row = &term.grid()[line];
    row[term.last_column()].flags.contains(Flags::WRAPLINE)
}

/// A match ending on a wide character ends on its spacer too.
fn expand_wide<T: EventListener>(term: &Term<T>, point: Point) -> Point {
    let cell = &term.grid()[point.line][point.column];
    if cell.flags.contains(Flags::WIDE_CHAR) && point.column < term.last_column() {
        return point.add(term, Boundary::None, 1);
    }
    point
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
