//! `/memory` in `k`'s REPL, and the curation `k` waits for when it leaves.

use std::time::Duration;

use ai_chat_engine::memory::{self, store, MEMORY_OFF};
use ai_chat_engine::{Conversation, Engine, MemoryCommand, MemoryOutcome};

/// Changes `/memory` lists.
const SHOWN_CHANGES: usize = 20;

/// How long `k` waits at exit for the curator to read the conversation:
/// a fast model answers in a few seconds; past this, leaving wins and the
/// facts of this one conversation are not kept.
pub const EXIT_WAIT: Duration = Duration::from_secs(20);

/// What `/memory …` prints (editing runs the editor on this terminal first).
pub fn run(engine: &Engine, cmd: &MemoryCommand) -> String {
    let Some(paths) = engine.memory_paths() else {
        return MEMORY_OFF.to_string();
    };
    match cmd {
        MemoryCommand::Show => memory::show(&paths, SHOWN_CHANGES),
        MemoryCommand::Edit(scope) => {
            let path = match store::edit_target(&paths, *scope) {
                Ok(p) => p,
                Err(e) => return format!("k: {e}"),
            };
            match memory::editor_command(&path).status() {
                Ok(s) if s.success() => format!("edited {}", path.display()),
                Ok(s) => format!("k: the editor exited with {s}; {}", path.display()),
                Err(e) => format!("k: cannot start the editor: {e}"),
            }
        }
        MemoryCommand::Usage(arg) => {
            format!("k: /memory {arg}? use /memory, /memory edit or /memory edit global")
        }
    }
}

/// One line saying what a curation did, or `None` when it changed nothing.
pub fn summary(outcome: &MemoryOutcome) -> Option<String> {
    match outcome {
        Ok(r) if r.changes.is_empty() => None,
        Ok(r) => {
            let lines: Vec<String> = r.changes.iter().map(ToString::to_string).collect();
            Some(format!("memory updated:\n  {}", lines.join("\n  ")))
        }
        Err(e) => Some(format!("memory not updated: {e}")),
    }
}

/// Hands `conv` to the curator; with `wait`, waits (bounded) for the
/// outcome and returns its summary.
pub fn close(engine: &Engine, conv: &Conversation, wait: bool) -> Option<String> {
    let rx = engine.close_conversation(conv)?;
    if !wait {
        return None;
    }
    summary(&rx.recv_timeout(EXIT_WAIT).ok()?)
}
