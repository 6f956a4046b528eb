//! Goal mode in `k`: a goal from flags or `/goal`, and how it is shown.

use ai_chat_engine::{BudgetLimits, Conversation, GoalSpec};

use crate::args::GoalFlags;

/// The goal `objective` with `check` (else `--check`'s), each budget
/// limit from `limits` (as `/goal` named them), else from the `--goal-*`
/// flags, else the default.
pub fn spec(
    objective: &str,
    check: Option<&str>,
    limits: BudgetLimits,
    flags: &GoalFlags,
) -> Result<GoalSpec, String> {
    let check = check.or(flags.check.as_deref());
    GoalSpec::new(objective, check, limits.or(flags.limits()))
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
    use std::num::{NonZeroU32, NonZeroU64};

    use ai_chat_engine::GoalBudget;
    use clap::Parser;

    use super::*;
    use crate::args::Cli;

    fn flags(args: &[&str]) -> GoalFlags {
        Cli::try_parse_from(std::iter::once("k").chain(args.iter().copied()))
            .unwrap()
            .goal
    }

    #[test]
    fn a_goal_needs_text_and_a_check_and_takes_the_budget_flags() {
        let flags = flags(&["--goal-turns", "3", "--goal-minutes", "2"]);
        let s = spec(
            " fix it ",
            Some("cargo test"),
            BudgetLimits::default(),
            &flags,
        )
        .unwrap();
        assert_eq!(s.objective, "fix it");
        assert_eq!(s.budget.max_turns, 3);
        assert_eq!(s.budget.max_secs, 120);
        assert_eq!(s.budget.max_tokens, GoalBudget::default().max_tokens);
        let none = BudgetLimits::default();
        assert!(spec("fix it", None, none, &flags)
            .unwrap_err()
            .contains("check"));
        assert!(spec("  ", Some("true"), none, &flags).is_err());
    }

    #[test]
    fn limits_named_with_slash_goal_come_before_the_flags() {
        let flags = flags(&[
            "--goal-turns",
            "3",
            "--goal-tokens",
            "500",
            "--check",
            "make",
        ]);
        let named = BudgetLimits {
            turns: NonZeroU32::new(1),
            minutes: NonZeroU64::new(5),
            ..BudgetLimits::default()
        };
        let s = spec("fix it", None, named, &flags).unwrap();
        assert_eq!(s.check, "make");
        assert_eq!(
            s.budget,
            GoalBudget {
                max_turns: 1,
                max_tokens: 500,
                max_secs: 300,
            }
        );
    }

    #[test]
    fn a_budget_flag_is_checked_as_the_slash_option_is() {
        for (args, want) in [
            (["--goal-turns", "0"], "at least 1 of its turns"),
            (["--goal-tokens", "many"], "not a whole number of tokens"),
            (["--goal-minutes", "99999999999999999999"], "too large"),
        ] {
            let e = Cli::try_parse_from(std::iter::once("k").chain(args)).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
    }
}
