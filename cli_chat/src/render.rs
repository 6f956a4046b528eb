//! Where a turn's events go: text for people (answer on stdout, activity on
//! stderr) or JSON lines for programs.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};

use ai_tools::terminal_text::escape_controls;

use crate::answer_view::AnswerView;
use crate::pictures::Pictures;
use koi_protocol::{CompactionOutcome, DecidedBy, Event, GoalStatus, SubagentStep};

/// Longest tool error shown on one stderr line; the model sees all of it.
const MAX_ERROR_LINE_CHARS: usize = 200;

/// Receives a turn's events in order.
pub trait Output {
    /// Shows one event. An error means stdout is gone (e.g. a closed pipe).
    fn event(&mut self, ev: &Event) -> io::Result<()>;

    /// Called while waiting for the engine: a chance to follow a terminal
    /// resize.
    fn tick(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `--json`: every event as one line on stdout.
pub struct JsonOutput<W: Write> {
    out: W,
}

impl<W: Write> JsonOutput<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> Self {
        JsonOutput { out }
    }
}

impl<W: Write> Output for JsonOutput<W> {
    fn event(&mut self, ev: &Event) -> io::Result<()> {
        writeln!(self.out, "{}", ev.to_line())?;
        self.out.flush()
    }
}

/// ANSI styling for stderr, on only for a terminal without `NO_COLOR`.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    on: bool,
}

impl Style {
    /// Decides from stderr and `NO_COLOR`.
    pub fn for_stderr() -> Style {
        Style {
            on: io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    /// Plain text only.
    pub fn plain() -> Style {
        Style { on: false }
    }

    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// Faint.
    pub fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }

    /// Red.
    pub fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }

    /// Green.
    pub fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }

    /// Yellow.
    pub fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
}

/// Text for people: answer tokens on `out`, everything else short lines on `err`.
/// What the model or a tool says is shown with its control characters
/// escaped (see [`escape_controls`]), so it cannot move the cursor, clear
/// the screen or set the clipboard; only the answer on a `out` that is
/// not a terminal ([`TextOutput::raw_answer`]) keeps its exact bytes.
pub struct TextOutput<O: Write, E: Write> {
    out: O,
    err: E,
    style: Style,
    /// Answer tokens go to `out` byte for byte (a pipe or a file).
    raw_answer: bool,
    /// The answer stream has text not yet ended by a newline.
    out_mid_line: bool,
    /// Any answer text was written this turn.
    wrote_answer: bool,
    /// Reasoning text on `err` not yet ended by a newline.
    err_mid_line: bool,
    /// Answers rendered as markdown (a terminal, unless raw text was asked).
    view: Option<AnswerView>,
    /// A subagent's latest step stands on `err` as a live line (a
    /// terminal), erased before anything else is written.
    err_live: bool,
    /// Draws the pictures an answer names, on a terminal that can.
    pictures: Option<Pictures>,
    /// This turn's answer so far, when there are pictures to look for.
    answer: String,
}

impl<O: Write, E: Write> TextOutput<O, E> {
    /// Writes answers to `out` and activity to `err`.
    pub fn new(out: O, err: E, style: Style) -> Self {
        TextOutput {
            out,
            err,
            style,
            raw_answer: false,
            out_mid_line: false,
            wrote_answer: false,
            err_mid_line: false,
            view: None,
            err_live: false,
            pictures: None,
            answer: String::new(),
        }
    }

    /// Draws the pictures each answer names below it, with `pictures`.
    pub fn pictures(mut self, pictures: Option<Pictures>) -> Self {
        self.pictures = pictures;
        self
    }

    /// Renders answers as markdown with `view` instead of writing their text.
    pub fn rendered(mut self, view: Option<AnswerView>) -> Self {
        self.view = view;
        self
    }

    /// Whether answer tokens keep their exact bytes: for an `out` that is
    /// not a terminal, where a program reads them and no terminal acts on
    /// them.
    pub fn raw_answer(mut self, raw: bool) -> Self {
        self.raw_answer = raw;
        self
    }

    fn end_answer_line(&mut self) -> io::Result<()> {
        if let Some(view) = &mut self.view {
            view.finish(&mut self.out)?;
        }
        if self.out_mid_line {
            writeln!(self.out)?;
            self.out.flush()?;
            self.out_mid_line = false;
        }
        Ok(())
    }

    fn end_reasoning_line(&mut self) {
        if self.err_mid_line {
            let _ = writeln!(self.err);
            self.err_mid_line = false;
        }
    }

    /// Erases the live subagent line, if one stands.
    fn clear_live(&mut self) {
        if self.err_live {
            let _ = write!(self.err, "\r\x1b[2K");
            let _ = self.err.flush();
            self.err_live = false;
        }
    }

    /// A subagent's step, nested under its tool line: on a terminal one
    /// live line that the next step replaces and the end erases (the
    /// parent's `←` line is the collapsed summary); elsewhere a line each.
    fn nested(&mut self, text: &str) -> io::Result<()> {
        let line = format!("  │ {}", one_line(text));
        if !self.style.on {
            return self.note(&line);
        }
        self.end_answer_line()?;
        self.end_reasoning_line();
        let _ = write!(self.err, "\r\x1b[2K{}", self.style.dim(&line));
        let _ = self.err.flush();
        self.err_live = true;
        Ok(())
    }

    /// A line on stderr (failures to write there are not worth dying for).
    fn note(&mut self, line: &str) -> io::Result<()> {
        self.end_answer_line()?;
        self.end_reasoning_line();
        let _ = writeln!(self.err, "{line}");
        let _ = self.err.flush();
        Ok(())
    }
}

impl<O: Write, E: Write> Output for TextOutput<O, E> {
    fn tick(&mut self) -> io::Result<()> {
        match &mut self.view {
            Some(view) => view.check_resize(&mut self.out),
            None => Ok(()),
        }
    }

    fn event(&mut self, ev: &Event) -> io::Result<()> {
        if !matches!(ev, Event::Subagent { .. }) {
            self.clear_live();
        }
        match ev {
            Event::Session { .. } | Event::Usage { .. } => Ok(()),
            Event::Subagent { step, .. } => match step {
                SubagentStep::ToolStart { name, summary, .. } => {
                    self.nested(&format!("{name} {summary}"))
                }
                SubagentStep::ToolFailed { error, .. } => self.nested(&format!("✗ {error}")),
                SubagentStep::Finished { .. } => {
                    self.clear_live();
                    Ok(())
                }
                SubagentStep::Round { .. } | SubagentStep::ToolDone { .. } => Ok(()),
            },
            Event::ApprovalAsked { .. } | Event::Uncertain { .. } => {
                // The question is asked below the answer, which must not
                // be repainted under it.
                match &mut self.view {
                    Some(view) => view.finish(&mut self.out),
                    None => Ok(()),
                }
            }
            Event::AssistantStart => {
                if self.wrote_answer {
                    self.end_answer_line()?;
                }
                Ok(())
            }
            Event::Token { text } => {
                self.end_reasoning_line();
                if self.pictures.is_some() {
                    self.answer.push_str(text);
                }
                if let Some(view) = &mut self.view {
                    view.push(text, &mut self.out)?;
                    self.wrote_answer |= !text.is_empty();
                    return Ok(());
                }
                let shown = if self.raw_answer {
                    Cow::Borrowed(text.as_str())
                } else {
                    escape_controls(text)
                };
                self.out.write_all(shown.as_bytes())?;
                self.out.flush()?;
                if !text.is_empty() {
                    self.wrote_answer = true;
                    self.out_mid_line = !text.ends_with('\n');
                }
                Ok(())
            }
            Event::Reasoning { text } => {
                // The live region cannot be repainted under other output.
                if let Some(view) = &mut self.view {
                    view.finish(&mut self.out)?;
                }
                let shown = self.style.dim(&escape_controls(text));
                let _ = self.err.write_all(shown.as_bytes());
                let _ = self.err.flush();
                if !text.is_empty() {
                    self.err_mid_line = !text.ends_with('\n');
                }
                Ok(())
            }
            Event::ToolStart { name, summary, .. } => {
                let line = format!("→ {name} {summary}");
                self.note(&self.style.dim(escape_controls(line.trim_end()).as_ref()))
            }
            Event::ToolProgress { text, .. } => {
                let line = self.style.dim(&format!("  … {}", escape_controls(text)));
                self.note(&line)
            }
            Event::ToolDone { preview, .. } => {
                let line = self.style.dim(&format!("← {}", escape_controls(preview)));
                self.note(&line)
            }
            Event::Notice { text } => {
                let line = self.style.dim(&format!("note: {}", escape_controls(text)));
                self.note(&line)
            }
            Event::ToolFailed { error, .. } => {
                let line = self.style.yellow(&format!("✗ {}", one_line(error)));
                self.note(&line)
            }
            Event::ApprovalDecided { approved, by, .. } => match (approved, by) {
                (true, _) => {
                    let line = self.style.green("✓ approved");
                    self.note(&line)
                }
                (false, DecidedBy::NoTty) => {
                    let line = self.style.yellow(
                        "✗ not run: it needs approval and there is no terminal to ask (see --mode)",
                    );
                    self.note(&line)
                }
                // The engine's refusal (`tool_failed`) follows and says it.
                (false, _) => Ok(()),
            },
            Event::Compaction {
                outcome, message, ..
            } => {
                let line = format!("⟳ {message}");
                let line = match outcome {
                    CompactionOutcome::Dropped | CompactionOutcome::Failed => {
                        self.style.yellow(&line)
                    }
                    _ => self.style.dim(&line),
                };
                self.note(&line)
            }
            Event::Goal {
                status, message, ..
            } => {
                let line = format!("◎ {}", escape_controls(message));
                let line = match status {
                    GoalStatus::Complete | GoalStatus::CheckPassed => self.style.green(&line),
                    GoalStatus::Active => self.style.dim(&line),
                    _ => self.style.yellow(&line),
                };
                self.note(&line)
            }
            Event::Done => {
                self.end_answer_line()?;
                let answer = std::mem::take(&mut self.answer);
                match &self.pictures {
                    Some(pictures) => pictures.show(&answer, &mut self.out),
                    None => Ok(()),
                }
            }
            Event::Error { message, .. } => {
                let line = self.style.red(&format!("k: {}", one_line(message)));
                self.note(&line)
            }
        }
    }
}

impl<O: Write, E: Write> Drop for TextOutput<O, E> {
    fn drop(&mut self) {
        // A turn cut short (Ctrl+C) leaves its live region: print it.
        if let Some(view) = &mut self.view {
            let _ = view.finish(&mut self.out);
        }
    }
}

/// First line of `s`, control characters shown escaped, at most
/// [`MAX_ERROR_LINE_CHARS`] characters.
pub fn one_line(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    let mut out: String = escape_controls(first)
        .chars()
        .take(MAX_ERROR_LINE_CHARS)
        .collect();
    if first.chars().count() > MAX_ERROR_LINE_CHARS || s.lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_output_separates_answer_and_activity() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        {
            let mut t = TextOutput::new(&mut out, &mut err, Style::plain());
            for ev in [
                Event::AssistantStart,
                Event::Token {
                    text: "Let me look.".into(),
                },
                Event::ToolStart {
                    id: "c1".into(),
                    name: "fs_read".into(),
                    args_preview: r#"{"path":"src/main.rs"}"#.into(),
                    summary: "src/main.rs".into(),
                },
                Event::ToolDone {
                    id: "c1".into(),
                    preview: "read src/main.rs → 3 lines".into(),
                },
                Event::AssistantStart,
                Event::Token {
                    text: "It prints hi.".into(),
                },
                Event::Done,
            ] {
                t.event(&ev).unwrap();
            }
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Let me look.\nIt prints hi.\n"
        );
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "→ fs_read src/main.rs\n← read src/main.rs → 3 lines\n"
        );
    }

    fn explore_events() -> Vec<Event> {
        let nested = |step| Event::Subagent {
            parent: "e1".into(),
            step,
        };
        vec![
            Event::ToolStart {
                id: "e1".into(),
                name: "explore".into(),
                args_preview: String::new(),
                summary: "how?".into(),
            },
            nested(SubagentStep::Round { round: 1 }),
            nested(SubagentStep::ToolStart {
                id: "r1".into(),
                name: "fs_read".into(),
                summary: "a.rs".into(),
            }),
            nested(SubagentStep::ToolFailed {
                id: "w1".into(),
                error: "denied".into(),
            }),
            nested(SubagentStep::Finished {
                summary: "explore: 2 rounds".into(),
            }),
            Event::ToolDone {
                id: "e1".into(),
                preview: "explore: 2 rounds".into(),
            },
        ]
    }

    fn stderr_of(style: Style) -> String {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        {
            let mut t = TextOutput::new(&mut out, &mut err, style);
            for ev in explore_events() {
                t.event(&ev).unwrap();
            }
        }
        assert!(out.is_empty());
        String::from_utf8(err).unwrap()
    }

    #[test]
    fn subagent_steps_nest_under_the_tool_line() {
        // A log: one nested line per step.
        assert_eq!(
            stderr_of(Style::plain()),
            "→ explore how?\n  │ fs_read a.rs\n  │ ✗ denied\n← explore: 2 rounds\n"
        );
        // A terminal: one live line, replaced by each step and erased at
        // the end, so the call collapses to its summary.
        let err = stderr_of(Style { on: true });
        assert!(
            err.contains("\r\x1b[2K\x1b[2m  │ fs_read a.rs\x1b[0m\r\x1b[2K"),
            "{err:?}"
        );
        assert!(
            err.ends_with("denied\x1b[0m\r\x1b[2K\x1b[2m← explore: 2 rounds\x1b[0m\n"),
            "{err:?}"
        );
    }

    #[test]
    fn one_line_is_short_and_clean() {
        assert_eq!(one_line("a\x1bb\nsecond"), "a␛b…");
        assert_eq!(one_line(&"x".repeat(500)).chars().count(), 201);
    }
}
