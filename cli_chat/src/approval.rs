//! Asking the user `[y/N]` on the terminal, or refusing when there is none.

use std::fs::OpenOptions;
use std::io::Write;

use rustyline::config::{Behavior, Config};
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

use ai_tools::terminal_text::escape_controls;

use crate::render::Style;
use koi_protocol::DecidedBy;

/// Decides approval requests.
pub trait Approver {
    /// Shows `summary` and `detail` and returns whether the call may run,
    /// and who decided.
    fn ask(&mut self, summary: &str, detail: &str) -> (bool, DecidedBy);
}

/// Nobody to ask: every request is denied.
#[derive(Debug, Default)]
pub struct NoTty;

impl Approver for NoTty {
    fn ask(&mut self, _summary: &str, _detail: &str) -> (bool, DecidedBy) {
        (false, DecidedBy::NoTty)
    }
}

/// Asks on the controlling terminal (`/dev/tty`), whatever stdin and stdout
/// are redirected to, with a line editor so Ctrl+C answers "no".
pub struct TtyApprover {
    editor: Option<DefaultEditor>,
}

impl TtyApprover {
    /// Opens the terminal now. rustyline installs its own SIGINT handler
    /// while an editor exists, so create this before
    /// [`crate::interrupt::Interrupts::install`], which then sits on top.
    pub fn open() -> Self {
        let cfg = Config::builder()
            .behavior(Behavior::PreferTerm)
            .auto_add_history(false)
            .build();
        TtyApprover {
            editor: DefaultEditor::with_config(cfg).ok(),
        }
    }
}

impl Approver for TtyApprover {
    fn ask(&mut self, summary: &str, detail: &str) -> (bool, DecidedBy) {
        let style = Style::for_stderr();
        if let Ok(mut tty) = OpenOptions::new().write(true).open("/dev/tty") {
            let _ = tty.write_all(render_request(summary, detail, style).as_bytes());
            let _ = tty.flush();
        }
        let Some(editor) = self.editor.as_mut() else {
            return (false, DecidedBy::NoTty);
        };
        match editor.readline("Allow? [y/N] ") {
            Ok(answer) => (is_yes(&answer), DecidedBy::User),
            Err(ReadlineError::Interrupted) => (false, DecidedBy::Interrupt),
            Err(_) => (false, DecidedBy::User),
        }
    }
}

impl TtyApprover {
    /// Shows `shown` on the terminal and reads one answer line; `None`
    /// when there is no terminal or the user pressed Ctrl+C / Ctrl+D.
    pub fn ask_line(&mut self, shown: &str, prompt: &str) -> Option<String> {
        if let Ok(mut tty) = OpenOptions::new().write(true).open("/dev/tty") {
            let _ = tty.write_all(shown.as_bytes());
            let _ = tty.flush();
        }
        self.editor.as_mut()?.readline(prompt).ok()
    }
}

/// `y` or `yes`, any case, surrounding blanks ignored.
pub fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// The request as shown on the terminal: the summary, then the detail
/// (a diff gets its added and removed lines coloured).
/// Control characters in either (a file's content in a diff, say) are
/// shown escaped, so they cannot repaint the prompt they sit in.
pub fn render_request(summary: &str, detail: &str, style: Style) -> String {
    let mut s = format!(
        "\n{} {}\n",
        style.yellow("approval needed:"),
        escape_controls(summary)
    );
    for line in detail.lines() {
        let line = escape_controls(line);
        let line = line.as_ref();
        let shown = if line.starts_with('+') && !line.starts_with("+++") {
            style.green(line)
        } else if line.starts_with('-') && !line.starts_with("---") {
            style.red(line)
        } else {
            line.to_string()
        };
        s.push_str("  ");
        s.push_str(&shown);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yes_approves() {
        assert!(is_yes("y"));
        assert!(is_yes(" YES \n"));
        assert!(!is_yes(""));
        assert!(!is_yes("n"));
        assert!(!is_yes("yy"));
        assert_eq!((false, DecidedBy::NoTty), NoTty.ask("rm x", ""));
    }

    #[test]
    fn request_shows_summary_and_diff() {
        let r = render_request("edit a.txt", "--- a\n+++ b\n-old\n+new", Style::plain());
        assert_eq!(
            r,
            "\napproval needed: edit a.txt\n  --- a\n  +++ b\n  -old\n  +new\n"
        );
        let r = render_request(
            "edit \x1b]52;c;eA==\x07a.txt",
            "+\x1b[2J\x1b[Hfake prompt\u{9b}0m",
            Style::plain(),
        );
        assert!(
            !r.contains('\x1b') && !r.contains('\x07') && !r.contains('\u{9b}'),
            "{r}"
        );
        assert!(r.contains("+␛[2J␛[Hfake prompt\\x9b0m"), "{r}");
    }
}
