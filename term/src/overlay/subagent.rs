//! A subagent's steps (an `explore` call's child) as the panel shows
//! them: nested under the parent's tool line while it runs; the finished
//! call collapses to its own one-line result.

use ai_chat_engine::SubagentStep;

/// Steps shown under a running subagent: the latest few, so parallel
/// explores each keep a short, steady block instead of a scrolling log.
pub const SHOWN_STEPS: usize = 4;

/// Where one of the child's calls stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Still running.
    Running,
    /// Finished.
    Done,
    /// Refused or failed.
    Failed,
}

impl Mark {
    /// The glyph in front of the step.
    pub fn glyph(self) -> &'static str {
        match self {
            Mark::Running => "·",
            Mark::Done => "✓",
            Mark::Failed => "✗",
        }
    }
}

/// The child's calls so far, oldest first.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Steps {
    calls: Vec<(String, String, Mark)>,
}

impl Steps {
    /// Takes one step in; rounds and the end change nothing shown.
    pub fn apply(&mut self, step: &SubagentStep) {
        match step {
            SubagentStep::ToolStart { id, name, summary } => {
                let text = format!("{name} {summary}").trim_end().to_string();
                self.calls.push((id.clone(), text, Mark::Running));
            }
            SubagentStep::ToolDone { id, .. } => self.mark(id, Mark::Done),
            SubagentStep::ToolFailed { id, .. } => self.mark(id, Mark::Failed),
            SubagentStep::Round { .. } | SubagentStep::Finished { .. } => {}
        }
    }

    fn mark(&mut self, id: &str, mark: Mark) {
        if let Some(call) = self.calls.iter_mut().rev().find(|c| c.0 == id) {
            call.2 = mark;
        }
    }

    /// The lines to show: how many earlier calls are hidden, and the
    /// latest [`SHOWN_STEPS`] calls.
    pub fn shown(&self) -> (usize, impl Iterator<Item = (Mark, &str)>) {
        let hidden = self.calls.len().saturating_sub(SHOWN_STEPS);
        let shown = self.calls[hidden..]
            .iter()
            .map(|(_, text, mark)| (*mark, text.as_str()));
        (hidden, shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(id: &str) -> SubagentStep {
        SubagentStep::ToolStart {
            id: id.into(),
            name: "fs_read".into(),
            summary: format!("{id}.rs"),
        }
    }

    #[test]
    fn the_latest_calls_show_with_their_state() {
        let mut s = Steps::default();
        for id in ["a", "b", "c", "d", "e"] {
            s.apply(&start(id));
        }
        s.apply(&SubagentStep::ToolDone {
            id: "e".into(),
            preview: "read".into(),
        });
        s.apply(&SubagentStep::ToolFailed {
            id: "d".into(),
            error: "denied".into(),
        });
        let (hidden, shown) = s.shown();
        let shown: Vec<_> = shown.collect();
        assert_eq!(hidden, 1);
        assert_eq!(shown[0], (Mark::Running, "fs_read b.rs"));
        assert_eq!(shown[2], (Mark::Failed, "fs_read d.rs"));
        assert_eq!(shown[3], (Mark::Done, "fs_read e.rs"));
    }
}
