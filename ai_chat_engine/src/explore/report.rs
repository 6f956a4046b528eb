//! What a subagent tells the front ends: its steps while it runs (nested
//! under the parent's tool call) and its totals when it ends.

use ai_tools::plural::counted;

/// One step of a subagent, streamed as
/// [`Event::Subagent`](crate::Event::Subagent) under the parent's
/// tool call; declared once, in the protocol. Only the front ends see
/// these; the parent model sees the final answer alone.
pub use koi_protocol::SubagentStep;

/// How a subagent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubagentEnd {
    /// It answered.
    Answered,
    /// It used all its rounds.
    RoundLimit,
    /// Its tool results passed its history budget.
    ByteLimit,
    /// It ran out of wall time.
    TimeLimit,
    /// The parent turn was cancelled.
    Cancelled,
    /// The model request failed (the error, in words).
    Failed(String),
}

/// A subagent's totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentReport {
    /// Model rounds it ran.
    pub rounds: usize,
    /// Tool calls it asked for (refused ones included).
    pub tool_calls: usize,
    /// Input tokens over all its rounds (cached ones included).
    pub input_tokens: u64,
    /// Output tokens over all its rounds.
    pub output_tokens: u64,
    /// How it ended.
    pub end: SubagentEnd,
}

impl SubagentReport {
    /// Nothing done yet.
    pub(crate) fn new() -> SubagentReport {
        SubagentReport {
            rounds: 0,
            tool_calls: 0,
            input_tokens: 0,
            output_tokens: 0,
            end: SubagentEnd::Answered,
        }
    }

    /// One line: `explore: 3 rounds, 5 tool calls, 1200 input + 300
    /// output tokens`, with how it stopped when it did not answer. The
    /// parent model reads it under the answer; front ends show it as the
    /// collapsed subagent.
    pub fn line(&self) -> String {
        let mut line = format!(
            "explore: {}, {}, {} input + {} output tokens",
            counted(self.rounds, "round", "rounds"),
            counted(self.tool_calls, "tool call", "tool calls"),
            self.input_tokens,
            self.output_tokens
        );
        let why = match &self.end {
            SubagentEnd::Answered => None,
            SubagentEnd::RoundLimit => Some("stopped at its round limit".to_string()),
            SubagentEnd::ByteLimit => Some("stopped at its history budget".to_string()),
            SubagentEnd::TimeLimit => Some("stopped at its time limit".to_string()),
            SubagentEnd::Cancelled => Some("cancelled".to_string()),
            SubagentEnd::Failed(e) => Some(format!("failed: {e}")),
        };
        if let Some(why) = why {
            line.push_str("; ");
            line.push_str(&why);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_and_says_why_it_stopped() {
        let mut r = SubagentReport::new();
        r.rounds = 1;
        r.tool_calls = 3;
        r.input_tokens = 120;
        r.output_tokens = 7;
        assert_eq!(
            r.line(),
            "explore: 1 round, 3 tool calls, 120 input + 7 output tokens"
        );
        r.end = SubagentEnd::RoundLimit;
        assert!(r.line().ends_with("; stopped at its round limit"));
    }
}
