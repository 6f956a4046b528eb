//! `k --suggest "words"`: one command line for the words on stdout, from
//! the engine's `suggest` profile (plan mode, nothing saved), for shell
//! widgets outside koi (under tmux, over ssh). Nothing is run; Ctrl+C
//! cancels and prints nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ai_chat_engine::suggest::{self, SuggestContext, SuggestError};
use ai_tools::Mode;
use anyhow::{Context, Result};

use crate::args::Cli;
use crate::exit::Exit;
use crate::interrupt::Interrupts;
use crate::setup::Settings;
use ai_chat_engine::Front;

/// A suggestion slower than this is not worth waiting for at a prompt.
const SUGGEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How often the Ctrl+C flag is looked at while the model thinks.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// The shell the suggestion is for: `$SHELL`'s name, else `sh`.
fn shell_name(shell: Option<&str>) -> String {
    shell
        .and_then(|s| std::path::Path::new(s).file_name())
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty())
        .unwrap_or("sh")
        .to_owned()
}

pub fn run(cli: &Cli, words: &str) -> Result<Exit> {
    if words.trim().is_empty() {
        say!("k: --suggest needs words to turn into a command");
        return Ok(Exit::Usage);
    }
    let engine = Settings::load(&cli.common, Front::Suggest)?.build_engine(Mode::Plan)?;
    if engine.is_demo() {
        say!("k: no model configured ([ai] in koi.toml): nothing to suggest with");
        return Ok(Exit::Usage);
    }
    let ctx = SuggestContext {
        cwd: std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string()),
        shell: shell_name(std::env::var("SHELL").ok().as_deref()),
        os: std::env::consts::OS.to_owned(),
        last_command: None,
        last_exit: None,
    };
    let interrupts = Interrupts::install().context("cannot install the Ctrl+C handler")?;
    let (rx, cancel) = suggest::start(&engine, words, &ctx);
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (done, cancel) = (done.clone(), cancel.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Acquire) {
                if interrupts.take() {
                    cancel.cancel();
                }
                std::thread::sleep(INTERRUPT_POLL);
            }
        })
    };
    let result = suggest::finish(&rx, &cancel, SUGGEST_TIMEOUT);
    done.store(true, Ordering::Release);
    let _ = watcher.join();
    match result {
        Ok(command) => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{command}").and_then(|()| out.flush());
            Ok(Exit::Done)
        }
        Err(SuggestError::Cancelled) => Ok(Exit::Interrupted),
        Err(e) => {
            say!("k: no suggestion: {e}");
            Ok(Exit::TurnFailed)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shell_is_named_by_its_file() {
        assert_eq!(super::shell_name(Some("/usr/bin/zsh")), "zsh");
        assert_eq!(super::shell_name(Some("")), "sh");
        assert_eq!(super::shell_name(None), "sh");
    }
}
