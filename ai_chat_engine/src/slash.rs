//! The slash commands both front ends (the overlay and `k`'s REPL) accept,
//! parsed in one place so they mean the same thing everywhere.

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
    /// `/image FILE`: attach an image to the next message (without a
    /// file: say what is attached).
    Image(Option<String>),
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
            "/image" => SlashCommand::Image(arg),
            "/help" | "/?" => SlashCommand::Help,
            "/exit" | "/quit" => SlashCommand::Exit,
            other => SlashCommand::Unknown(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SlashCommand::{self, *};

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
            ("/image shot one.png", Image(Some("shot one.png".into()))),
            ("/image", Image(None)),
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
