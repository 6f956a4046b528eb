//! `k`'s exit codes (documented in cli_chat/README.md).

/// How `k` ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The turn ended with `Done` (or a subcommand succeeded).
    Done,
    /// The turn ended with `Error`: provider error, cancelled, a limit.
    TurnFailed,
    /// Bad usage or configuration; nothing was asked.
    Usage,
    /// Ctrl+C in one-shot mode.
    Interrupted,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::TurnFailed => 1,
            Exit::Usage => 2,
            Exit::Interrupted => 130,
        }
    }
}
