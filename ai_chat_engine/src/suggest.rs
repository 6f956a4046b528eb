//! The `suggest` profile: words typed at a shell prompt (`# big files this
//! week`) become one command line, from one engine call that keeps the
//! system prompt and tools of every other conversation (so the provider's
//! cache prefix holds) but runs in plan mode, where only read-only tools
//! run, and never saves a session. The request asks for exactly one
//! command; [`command_from_answer`] holds the answer to that.
//!
//! Both front ends use it: koi's `#` at the prompt, and `k --suggest`.

use std::time::{Duration, Instant};

use ai_tools::Mode;
use crossbeam_channel::{Receiver, RecvTimeoutError};

use crate::engine::{CancelHandle, Engine, EngineOptions};
use crate::message::UserInput;
use koi_protocol::ErrorKind;

use crate::stream::{EngineError, Event};
use crate::untrusted::untrusted;

/// A suggested command longer than this is not one command a person would
/// read at a prompt before running it.
pub const MAX_COMMAND_BYTES: usize = 4096;

/// What the suggestion may know about where it will run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuggestContext {
    /// The shell's working directory.
    pub cwd: Option<String>,
    /// `bash`, `zsh`, `fish`, …
    pub shell: String,
    /// `linux`, `macos`, …
    pub os: String,
    /// The command line run last, as the shell reported it.
    pub last_command: Option<String>,
    pub last_exit: Option<i32>,
}

/// Why no command came back.
#[derive(Debug, thiserror::Error)]
pub enum SuggestError {
    #[error("cancelled")]
    Cancelled,
    #[error("the answer held no command")]
    NoCommand,
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The turn ended with an error (its message).
    #[error("{0}")]
    Engine(String),
}

/// The engine options of the suggest profile: plan mode (read-only tools
/// run, anything else is refused without asking: nobody is there to ask),
/// no session log, no title request, no MCP servers (a suggestion is one
/// short request that never waits for a server to start).
pub fn profile(mut options: EngineOptions) -> EngineOptions {
    options.mode = Some(Mode::Plan);
    options.mcp = None;
    options.persist = false;
    options.generate_titles = false;
    options
}

/// The one user message of a suggestion.
pub fn request_text(words: &str, ctx: &SuggestContext) -> String {
    let shell = if ctx.shell.is_empty() {
        "sh"
    } else {
        &ctx.shell
    };
    let mut text = format!(
        "Suggest one {shell} command line for the request below, to be put at \
         the user's prompt and run only if they press Enter. You may use \
         read-only tools to look around first. Answer with the command line \
         alone: no prose, no explanation, no code fence, one line.\n\n\
         shell: {shell}\nos: {}\n",
        ctx.os
    );
    if let Some(cwd) = &ctx.cwd {
        text.push_str(&format!("cwd: {cwd}\n"));
    }
    if let Some(command) = ctx.last_command.as_deref().filter(|c| !c.is_empty()) {
        text.push_str(&untrusted("terminal", "last command", command));
        text.push('\n');
    }
    if let Some(code) = ctx.last_exit {
        text.push_str(&format!("last exit status: {code}\n"));
    }
    text.push_str(&format!("\nrequest: {}", words.trim()));
    text
}

/// The command in a model's answer: the first line that is not a code
/// fence, with inline backticks and a leading `$ ` prompt taken off.
pub fn command_from_answer(answer: &str) -> Result<String, SuggestError> {
    let line = answer
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("```"))
        .ok_or(SuggestError::NoCommand)?;
    let line = line
        .strip_prefix('`')
        .and_then(|l| l.strip_suffix('`'))
        .unwrap_or(line);
    let line = line.strip_prefix("$ ").unwrap_or(line).trim();
    if line.is_empty() || line.len() > MAX_COMMAND_BYTES || line.chars().any(char::is_control) {
        return Err(SuggestError::NoCommand);
    }
    Ok(line.to_owned())
}

/// Starts the one call: a fresh conversation, never saved.
pub fn start(
    engine: &Engine,
    words: &str,
    ctx: &SuggestContext,
) -> (Receiver<Event>, CancelHandle) {
    let conversation = engine.new_conversation();
    engine.submit(&conversation, UserInput::text(request_text(words, ctx)))
}

/// Reads a started suggestion to its end: the command, or why not. The
/// answer is the last round's text (earlier rounds led to tool calls).
pub fn finish(
    rx: &Receiver<Event>,
    cancel: &CancelHandle,
    timeout: Duration,
) -> Result<String, SuggestError> {
    let deadline = Instant::now() + timeout;
    let mut answer = String::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::AssistantStart) => answer.clear(),
            Ok(Event::Token { text: t }) => answer.push_str(&t),
            Ok(Event::Done) => return command_from_answer(&answer),
            Ok(Event::Error {
                kind: ErrorKind::Cancelled,
                ..
            }) => return Err(SuggestError::Cancelled),
            Ok(Event::Error { message, .. }) => return Err(SuggestError::Engine(message)),
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => {
                cancel.cancel();
                return Err(SuggestError::Timeout(timeout));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(SuggestError::Engine(
                    EngineError::Internal("the turn ended without Done".into()).to_string(),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_answers_first_real_line() {
        let ok = |s: &str| command_from_answer(s).unwrap();
        assert_eq!(
            ok("find . -size +100M -mtime -7"),
            "find . -size +100M -mtime -7"
        );
        assert_eq!(ok("```bash\nls -la\n```"), "ls -la");
        assert_eq!(ok("`du -sh *`"), "du -sh *");
        assert_eq!(ok("\n$ git status\n"), "git status");
        assert!(command_from_answer("").is_err());
        assert!(command_from_answer("```\n```").is_err());
        assert!(command_from_answer("echo \u{1b}[2J").is_err());
    }

    #[test]
    fn the_request_carries_the_context_with_the_last_command_as_data() {
        let ctx = SuggestContext {
            cwd: Some("/srv".into()),
            shell: "zsh".into(),
            os: "linux".into(),
            last_command: Some("make test".into()),
            last_exit: Some(2),
        };
        let text = request_text("  big files this week ", &ctx);
        assert!(text.contains("one zsh command line"));
        assert!(text.contains("cwd: /srv\n"));
        assert!(text.contains("os: linux\n"));
        assert!(
            text.contains("<untrusted-data kind=\"terminal\" label=\"last command\">\nmake test\n")
        );
        assert!(text.contains("last exit status: 2\n"));
        assert!(text.ends_with("request: big files this week"));
    }
}
