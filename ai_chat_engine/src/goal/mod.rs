//! Goal mode: a task the engine keeps working on over turns, appending a
//! continue prompt after each answer, within a budget of turns, tokens
//! and time the user sets.
//!
//! Process completion is not goal satisfaction: a goal is complete only
//! when the check the user named (a command, e.g. `cargo test`) exits 0,
//! run by the runtime, never on the model's word. Technical failures
//! (an interrupt, a rate limit, the network, auth) pause a goal; the
//! model saying it cannot go on, or a spent budget, block it with the
//! reason. A goal found active when a conversation is loaded was cut
//! short by a crash or exit: it comes back paused, never running by
//! itself.

mod budget;
mod check;
mod driver;

use koi_protocol::{Event, GoalStatus};
use serde::{Deserialize, Serialize};

pub use budget::{
    parse_minutes, parse_tokens, parse_turns, BudgetLimits, GoalBudget, DEFAULT_MAX_TIME,
    DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS,
};
pub(crate) use driver::{run_goal, GoalStart};

/// The line a model answers with when it cannot continue.
pub const BLOCKED_MARKER: &str = "GOAL BLOCKED:";

/// A goal as the user set it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalSpec {
    /// What to achieve.
    pub objective: String,
    /// The command whose exit 0 means done.
    pub check: String,
    /// What it may spend.
    pub budget: GoalBudget,
}

impl GoalSpec {
    /// A goal with the default budget but for the `limits` named. Without
    /// a check there is nothing to prove it done, so both texts are
    /// required.
    pub fn new(
        objective: &str,
        check: Option<&str>,
        limits: BudgetLimits,
    ) -> Result<GoalSpec, String> {
        let objective = objective.trim();
        if objective.is_empty() {
            return Err("a goal needs a text saying what to achieve".into());
        }
        let Some(check) = check.map(str::trim).filter(|c| !c.is_empty()) else {
            return Err("a goal needs a check: a command whose exit 0 means done \
                 (/goal TEXT --check COMMAND, or k --goal TEXT --check COMMAND)"
                .into());
        };
        Ok(GoalSpec {
            objective: objective.to_string(),
            check: check.to_string(),
            budget: limits.budget(),
        })
    }
}

/// Where a goal stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum GoalState {
    /// Being worked on.
    Active,
    /// Stopped by a technical failure or a restart; `/goal resume` goes on.
    Paused {
        /// Why.
        reason: String,
    },
    /// The model cannot go on, or the budget is spent.
    Blocked {
        /// Why.
        reason: String,
    },
    /// The check passed.
    Complete,
}

impl std::fmt::Display for GoalState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GoalState::Active => f.write_str("active"),
            GoalState::Paused { reason } => write!(f, "paused: {reason}"),
            GoalState::Blocked { reason } => write!(f, "blocked: {reason}"),
            GoalState::Complete => f.write_str("complete"),
        }
    }
}

/// What a goal has spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalUsage {
    /// Turns taken.
    pub turns: u32,
    /// Tokens spent.
    pub tokens: u64,
    /// Seconds spent.
    pub secs: u64,
}

/// A goal with its state and what it has spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goal {
    /// As set.
    pub spec: GoalSpec,
    /// Where it stands.
    pub state: GoalState,
    /// What it spent.
    pub used: GoalUsage,
}

impl Goal {
    /// Why the budget is spent, if it is.
    pub fn exhausted(&self) -> Option<String> {
        let (u, b) = (&self.used, &self.spec.budget);
        if u.turns >= b.max_turns {
            Some(format!(
                "budget spent: {} of {} turns",
                u.turns, b.max_turns
            ))
        } else if u.tokens >= b.max_tokens {
            Some(format!(
                "budget spent: {} of {} tokens",
                u.tokens, b.max_tokens
            ))
        } else if u.secs >= b.max_secs {
            Some(format!("budget spent: {} of {} s", u.secs, b.max_secs))
        } else {
            None
        }
    }
}

impl std::fmt::Display for Goal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (u, b) = (&self.used, &self.spec.budget);
        write!(
            f,
            "goal {}: {} · check `{}` · {}/{} turns, {}/{} tokens, {}/{} s",
            self.state,
            self.spec.objective,
            self.spec.check,
            u.turns,
            b.max_turns,
            u.tokens,
            b.max_tokens,
            u.secs,
            b.max_secs
        )
    }
}

/// One run of the check command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// Exit 0.
    pub passed: bool,
    /// How it ended (`exit code: 1`, `timed out …`).
    pub ended: String,
    /// The end of its output.
    pub output_tail: String,
}

impl Goal {
    /// The goal's state as the event front ends are sent.
    pub fn to_event(&self) -> Event {
        let status = match self.state {
            GoalState::Active => GoalStatus::Active,
            GoalState::Paused { .. } => GoalStatus::Paused,
            GoalState::Blocked { .. } => GoalStatus::Blocked,
            GoalState::Complete => GoalStatus::Complete,
        };
        Event::Goal {
            status,
            message: self.to_string(),
            objective: Some(self.spec.objective.clone()),
            check: Some(self.spec.check.clone()),
        }
    }
}

impl CheckResult {
    /// The check's result as the event front ends are sent.
    pub fn to_event(&self) -> Event {
        let (status, message) = if self.passed {
            (GoalStatus::CheckPassed, "goal check passed".to_string())
        } else {
            (
                GoalStatus::CheckFailed,
                format!("goal check failed ({})", self.ended),
            )
        };
        Event::Goal {
            status,
            message,
            objective: None,
            check: None,
        }
    }
}

/// What the log records about a goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "goal", rename_all = "snake_case")]
pub enum GoalRecord {
    /// A goal was set (it starts active).
    Set {
        /// As the user set it.
        spec: GoalSpec,
    },
    /// Its state changed.
    Progress {
        /// The new state.
        #[serde(flatten)]
        state: GoalState,
        /// What it spent so far.
        used: GoalUsage,
    },
    /// The check ran.
    Checked {
        /// Its result.
        result: CheckResult,
    },
    /// The user ended it.
    Cleared,
}

/// The goal after `record`, from the one before.
pub fn fold(goal: Option<Goal>, record: &GoalRecord) -> Option<Goal> {
    match record {
        GoalRecord::Set { spec } => Some(Goal {
            spec: spec.clone(),
            state: GoalState::Active,
            used: GoalUsage::default(),
        }),
        GoalRecord::Progress { state, used } => goal.map(|g| Goal {
            state: state.clone(),
            used: *used,
            ..g
        }),
        GoalRecord::Checked { .. } => goal,
        GoalRecord::Cleared => None,
    }
}

/// The reason a goal found active at load is paused.
pub const RESUMED_PAUSE_REASON: &str =
    "the session was resumed; koi never continues a goal by itself (/goal resume goes on)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_fold_into_the_goal_and_serialise_flat() {
        let spec = GoalSpec {
            objective: "make it pass".into(),
            check: "cargo test".into(),
            budget: GoalBudget::default(),
        };
        let g = fold(None, &GoalRecord::Set { spec }).unwrap();
        assert_eq!(g.state, GoalState::Active);
        let progress = GoalRecord::Progress {
            state: GoalState::Blocked {
                reason: "no key".into(),
            },
            used: GoalUsage {
                turns: 2,
                tokens: 10,
                secs: 1,
            },
        };
        let json = serde_json::to_string(&progress).unwrap();
        assert!(json.contains("\"state\":\"blocked\""), "{json}");
        let back: GoalRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, progress);
        let g = fold(Some(g), &progress).unwrap();
        assert_eq!(g.used.turns, 2);
        assert!(fold(Some(g), &GoalRecord::Cleared).is_none());
    }

    #[test]
    fn each_budget_dimension_exhausts() {
        let mut g = Goal {
            spec: GoalSpec {
                objective: "x".into(),
                check: "true".into(),
                budget: GoalBudget {
                    max_turns: 3,
                    max_tokens: 100,
                    max_secs: 60,
                },
            },
            state: GoalState::Active,
            used: GoalUsage::default(),
        };
        assert_eq!(g.exhausted(), None);
        g.used.secs = 60;
        assert!(g.exhausted().unwrap().contains("60 of 60 s"));
        g.used.tokens = 100;
        assert!(g.exhausted().unwrap().contains("tokens"));
        g.used.turns = 3;
        assert!(g.exhausted().unwrap().contains("3 of 3 turns"));
    }
}
