//! Goal mode in `k`: a goal from flags or `/goal`, and how it is shown.

use ai_chat_engine::{Conversation, GoalBudget, GoalSpec};

use crate::args::GoalFlags;

/// The goal `objective` with `check`, budgets from `flags` (defaults for
/// the rest).
pub fn spec(objective: &str, check: Option<&str>, flags: &GoalFlags) -> Result<GoalSpec, String> {
    let mut spec = GoalSpec::new(objective, check)?;
    let d = spec.budget;
    spec.budget = GoalBudget {
        max_turns: flags.goal_turns.unwrap_or(d.max_turns),
        max_tokens: flags.goal_tokens.unwrap_or(d.max_tokens),
        max_secs: flags
            .goal_minutes
            .map_or(d.max_secs, |m| m.saturating_mul(60)),
    };
    let b = spec.budget;
    if b.max_turns == 0 || b.max_tokens == 0 || b.max_secs == 0 {
        return Err("a goal's budget must allow at least one turn, token and minute".into());
    }
    Ok(spec)
}

/// `/goal` with no argument: the goal and where it stands.
pub fn show(conv: &Conversation) -> String {
    match conv.goal() {
        Some(g) => g.to_string(),
        None => "no goal; set one with /goal TEXT --check COMMAND".into(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_goal_needs_text_and_a_check_and_takes_the_budget_flags() {
        let flags = GoalFlags {
            goal_turns: Some(3),
            goal_minutes: Some(2),
            ..GoalFlags::default()
        };
        let s = spec(" fix it ", Some("cargo test"), &flags).unwrap();
        assert_eq!(s.objective, "fix it");
        assert_eq!(s.budget.max_turns, 3);
        assert_eq!(s.budget.max_secs, 120);
        assert_eq!(s.budget.max_tokens, GoalBudget::default().max_tokens);
        assert!(spec("fix it", None, &flags).unwrap_err().contains("check"));
        assert!(spec("  ", Some("true"), &flags).is_err());
        let zero = GoalFlags {
            goal_turns: Some(0),
            ..GoalFlags::default()
        };
        assert!(spec("x", Some("true"), &zero).is_err());
    }
}
