//! The slash commands both front ends (the overlay and `k`'s REPL) accept,
//! parsed in one place so they mean the same thing everywhere.

mod goal;

pub use goal::GoalCommand;

/// What `/memory` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryCommand {
    /// `/memory`: the files, what they hold and the latest changes.
    Show,
    /// `/memory edit [global|project]`: open a memory file in `$EDITOR`
    /// (the project's unless `global` is named).
    Edit(crate::memory::MemoryScope),
    /// Anything else after `/memory`, as typed.
    Usage(String),
}

impl MemoryCommand {
    fn parse(arg: Option<String>) -> MemoryCommand {
        use crate::memory::MemoryScope;
        let Some(arg) = arg else {
            return MemoryCommand::Show;
        };
        let words: Vec<&str> = arg.split_whitespace().collect();
        match words.as_slice() {
            ["edit"] => MemoryCommand::Edit(MemoryScope::Project),
            ["edit", scope] => MemoryScope::parse(scope)
                .map_or_else(|| MemoryCommand::Usage(arg.clone()), MemoryCommand::Edit),
            _ => MemoryCommand::Usage(arg.clone()),
        }
    }
}

/// A line typed as `/command [argument]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    /// `/new`: start a new conversation.
    New,
    /// `/clear`: clear the view and start afresh.
    Clear,
    /// `/resume [id]`: continue a saved conversation (list them without an id).
    Resume(Option<String>),
    /// `/fork [id]`: continue a copy of a saved conversation (without an
    /// id: of the current one) under a new id.
    Fork(Option<String>),
    /// `/sessions`: list saved conversations.
    Sessions,
    /// `/model [name]`: show or switch the model.
    Model(Option<String>),
    /// `/mode [name]`: show or switch the approval mode.
    Mode(Option<String>),
    /// `/status`: model, mode, tokens used and the cached fraction.
    Status,
    /// `/cost`: the conversation's tokens, cache-hit share and, where
    /// prices are configured, money.
    Cost,
    /// `/cd DIR`: work in DIR (the overlay names a directory when the
    /// terminal's is too broad to work in, such as `~` or `/`).
    Cd(Option<String>),
    /// `/init`: have the model draft an AGENTS.md for the project (the
    /// write goes through the normal approval).
    Init,
    /// `/compact`: summarise older history now.
    Compact,
    /// `/goal …`: goal mode.
    Goal(GoalCommand),
    /// `/image FILE`: attach an image to the next message (without a
    /// file: say what is attached).
    Image(Option<String>),
    /// `/memory [edit [global|project]]`: the assistant's memory.
    Memory(MemoryCommand),
    /// `/help` (or `/?`).
    Help,
    /// `/exit` (or `/quit`).
    Exit,
    /// Anything else, as typed.
    Unknown(String),
}

impl SlashCommand {
    /// Parses a line starting with `/`.
    pub fn parse(line: &str) -> SlashCommand {
        let mut words = line.trim().splitn(2, char::is_whitespace);
        let command = words.next().unwrap_or("");
        let arg = words
            .next()
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string);
        match command {
            "/new" => SlashCommand::New,
            "/clear" => SlashCommand::Clear,
            "/resume" => SlashCommand::Resume(arg),
            "/fork" => SlashCommand::Fork(arg),
            "/sessions" => SlashCommand::Sessions,
            "/model" => SlashCommand::Model(arg),
            "/mode" => SlashCommand::Mode(arg),
            "/status" => SlashCommand::Status,
            "/cost" => SlashCommand::Cost,
            "/cd" => SlashCommand::Cd(arg),
            "/init" => SlashCommand::Init,
            "/compact" => SlashCommand::Compact,
            "/goal" => SlashCommand::Goal(GoalCommand::parse(arg)),
            "/image" => SlashCommand::Image(arg),
            "/memory" => SlashCommand::Memory(MemoryCommand::parse(arg)),
            "/help" | "/?" => SlashCommand::Help,
            "/exit" | "/quit" => SlashCommand::Exit,
            other => SlashCommand::Unknown(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SlashCommand::{self, *};
    use std::num::NonZeroU32;

    use super::{GoalCommand, MemoryCommand};
    use crate::goal::BudgetLimits;
    use crate::memory::MemoryScope;

    #[test]
    fn parses_commands_and_arguments() {
        let cases: &[(&str, SlashCommand)] = &[
            ("/new", New),
            ("  /clear  ", Clear),
            ("/resume", Resume(None)),
            ("/resume abc123", Resume(Some("abc123".into()))),
            ("/sessions", Sessions),
            ("/fork", Fork(None)),
            ("/fork s1", Fork(Some("s1".into()))),
            ("/model  gpt-x ", Model(Some("gpt-x".into()))),
            ("/mode", Mode(None)),
            ("/mode plan", Mode(Some("plan".into()))),
            ("/status", Status),
            ("/cost", Cost),
            ("/cd ~/src/koi", Cd(Some("~/src/koi".into()))),
            ("/cd", Cd(None)),
            ("/init", Init),
            ("/compact", Compact),
            ("/goal", Goal(GoalCommand::Show)),
            ("/goal clear", Goal(GoalCommand::Clear)),
            ("/goal resume", Goal(GoalCommand::Resume)),
            (
                "/goal make the tests pass --turns 2 --check cargo test -q",
                Goal(GoalCommand::Set {
                    objective: "make the tests pass".into(),
                    check: Some("cargo test -q".into()),
                    limits: BudgetLimits {
                        turns: NonZeroU32::new(2),
                        ..BudgetLimits::default()
                    },
                }),
            ),
            (
                "/goal tidy up",
                Goal(GoalCommand::Set {
                    objective: "tidy up".into(),
                    check: None,
                    limits: BudgetLimits::default(),
                }),
            ),
            ("/image shot one.png", Image(Some("shot one.png".into()))),
            ("/image", Image(None)),
            ("/memory", Memory(MemoryCommand::Show)),
            (
                "/memory edit",
                Memory(MemoryCommand::Edit(MemoryScope::Project)),
            ),
            (
                "/memory  edit global",
                Memory(MemoryCommand::Edit(MemoryScope::Global)),
            ),
            (
                "/memory forget all",
                Memory(MemoryCommand::Usage("forget all".into())),
            ),
            (
                "/memory edit team",
                Memory(MemoryCommand::Usage("edit team".into())),
            ),
            ("/?", Help),
            ("/quit", Exit),
            ("/frobnicate now", Unknown("/frobnicate".into())),
            ("/", Unknown("/".into())),
        ];
        for (line, want) in cases {
            assert_eq!(&SlashCommand::parse(line), want, "{line:?}");
        }
    }
}
