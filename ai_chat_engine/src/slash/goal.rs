//! `/goal`: show, clear or resume the goal, or set one with its check and
//! budget.
//!
//! `--check` takes the rest of the line (a command has spaces and dashes
//! of its own), so the budget options are read from the text before it,
//! anywhere among the objective's words.

use crate::goal::{parse_minutes, parse_tokens, parse_turns, BudgetLimits};

/// How `/goal` sets a goal, for the errors that show it.
pub const GOAL_USAGE: &str = "/goal TEXT [--turns N] [--tokens N] [--minutes N] --check COMMAND";

/// The option that takes the rest of the line.
const CHECK: &str = "--check";

/// What `/goal` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalCommand {
    /// `/goal`: show the goal.
    Show,
    /// `/goal clear`: end it.
    Clear,
    /// `/goal resume`: go on with a paused or blocked goal.
    Resume,
    /// `/goal TEXT [--turns N] [--tokens N] [--minutes N] [--check
    /// COMMAND]`: set a goal and start on it.
    Set {
        /// What to achieve.
        objective: String,
        /// The command whose exit 0 means done, if named here.
        check: Option<String>,
        /// The budget limits named here (the rest fall back).
        limits: BudgetLimits,
    },
    /// A `/goal` that cannot be read: what is wrong, to show as is.
    Invalid(String),
}

impl GoalCommand {
    pub(super) fn parse(arg: Option<String>) -> GoalCommand {
        let Some(arg) = arg else {
            return GoalCommand::Show;
        };
        match arg.as_str() {
            "clear" => GoalCommand::Clear,
            "resume" | "continue" => GoalCommand::Resume,
            _ => parse_set(&arg).unwrap_or_else(|e| {
                GoalCommand::Invalid(format!("/goal: {e} (usage: {GOAL_USAGE})"))
            }),
        }
    }
}

/// `TEXT [options] [--check COMMAND]`.
fn parse_set(arg: &str) -> Result<GoalCommand, String> {
    let (head, check) = split_check(arg);
    let check = match check {
        Some("") => return Err(format!("{CHECK} needs a command")),
        other => other.map(str::to_string),
    };
    let mut limits = BudgetLimits::default();
    let mut objective: Vec<&str> = Vec::new();
    let mut words = head.split_whitespace();
    while let Some(word) = words.next() {
        let Some(option) = word.strip_prefix("--") else {
            objective.push(word);
            continue;
        };
        let (name, inline) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, None),
        };
        let mut value = || {
            inline
                .or_else(|| words.next())
                .filter(|v| !v.is_empty() && !v.starts_with("--"))
                .ok_or_else(|| format!("--{name} needs a number"))
        };
        match name {
            "turns" => set(&mut limits.turns, name, value()?, parse_turns)?,
            "tokens" => set(&mut limits.tokens, name, value()?, parse_tokens)?,
            "minutes" => set(&mut limits.minutes, name, value()?, parse_minutes)?,
            _ => return Err(format!("unknown option --{name}")),
        }
    }
    Ok(GoalCommand::Set {
        objective: objective.join(" "),
        check,
        limits,
    })
}

/// Fills `slot`, named once, from `value`.
fn set<T>(
    slot: &mut Option<T>,
    name: &str,
    value: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<(), String> {
    if slot.is_some() {
        return Err(format!("--{name} is given twice"));
    }
    *slot = Some(parse(value).map_err(|e| format!("--{name} {value}: {e}"))?);
    Ok(())
}

/// The text before the first `--check` word and the (trimmed) command
/// after it, if there is one.
fn split_check(arg: &str) -> (&str, Option<&str>) {
    for (at, _) in arg.match_indices(CHECK) {
        let (before, after) = (&arg[..at], &arg[at + CHECK.len()..]);
        let starts_a_word = before.chars().next_back().is_none_or(char::is_whitespace);
        let command = if after.is_empty() || after.starts_with(char::is_whitespace) {
            Some(after)
        } else {
            after.strip_prefix('=')
        };
        if let (true, Some(command)) = (starts_a_word, command) {
            return (before, Some(command.trim()));
        }
    }
    (arg, None)
}

#[cfg(test)]
mod tests {
    use std::num::{NonZeroU32, NonZeroU64};

    use super::*;

    fn parse(arg: &str) -> GoalCommand {
        GoalCommand::parse(Some(arg.to_string()))
    }

    fn set_goal(objective: &str, check: Option<&str>, limits: BudgetLimits) -> GoalCommand {
        GoalCommand::Set {
            objective: objective.into(),
            check: check.map(str::to_string),
            limits,
        }
    }

    fn limits(turns: u32, tokens: u64, minutes: u64) -> BudgetLimits {
        BudgetLimits {
            turns: NonZeroU32::new(turns),
            tokens: NonZeroU64::new(tokens),
            minutes: NonZeroU64::new(minutes),
        }
    }

    fn error(arg: &str) -> String {
        match parse(arg) {
            GoalCommand::Invalid(e) => e,
            other => panic!("{arg:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn each_budget_option_is_read_in_any_order_among_the_words() {
        let cases = [
            ("fix it --turns 3", limits(3, 0, 0)),
            ("fix it --tokens 50000", limits(0, 50_000, 0)),
            ("fix it --minutes 5", limits(0, 0, 5)),
            ("--minutes 5 fix --turns=2 it --tokens 9", limits(2, 9, 5)),
            ("fix --tokens=9 --minutes=5 --turns 2 it", limits(2, 9, 5)),
        ];
        for (arg, want) in cases {
            assert_eq!(parse(arg), set_goal("fix it", None, want), "{arg:?}");
        }
    }

    #[test]
    fn check_takes_the_rest_of_the_line_with_its_spaces_and_dashes() {
        assert_eq!(
            parse("make  the tests\tpass --turns 4 --check cargo test --all -- --nocapture"),
            set_goal(
                "make the tests pass",
                Some("cargo test --all -- --nocapture"),
                limits(4, 0, 0)
            )
        );
        // Budget options after --check belong to the command.
        assert_eq!(
            parse("grow it --check ./run --turns 2"),
            set_goal("grow it", Some("./run --turns 2"), BudgetLimits::default())
        );
        assert_eq!(
            parse("tidy up --check=make lint"),
            set_goal("tidy up", Some("make lint"), BudgetLimits::default())
        );
        // Only the word --check starts the command.
        assert_eq!(
            parse("keep going--check x"),
            set_goal("keep going--check x", None, BudgetLimits::default())
        );
        assert_eq!(
            parse("say no-check-needed --check true"),
            set_goal("say no-check-needed", Some("true"), BudgetLimits::default())
        );
    }

    #[test]
    fn the_objective_keeps_its_words_and_punctuation() {
        assert_eq!(
            parse("rename `foo` to bar-baz, then -v tests"),
            set_goal(
                "rename `foo` to bar-baz, then -v tests",
                None,
                BudgetLimits::default()
            )
        );
    }

    #[test]
    fn bad_options_are_errors_that_say_what_is_wrong() {
        let cases = [
            ("fix it --turns", "--turns needs a number"),
            ("fix it --turns= --check true", "--turns needs a number"),
            ("fix it --turns --tokens 5", "--turns needs a number"),
            (
                "fix it --turns 0",
                "--turns 0: a goal needs at least 1 of its turns",
            ),
            (
                "fix it --tokens lots",
                "--tokens lots: not a whole number of tokens",
            ),
            (
                "fix it --minutes -3",
                "--minutes -3: not a whole number of minutes",
            ),
            (
                "fix it --turns 99999999999",
                "--turns 99999999999: too large (at most 4294967295 turns)",
            ),
            ("fix it --minutes 999999999999999999999", "too large"),
            ("fix it --turns 2 --turns 3", "--turns is given twice"),
            (
                "fix --verbose output --check true",
                "unknown option --verbose",
            ),
            ("fix it --check", "--check needs a command"),
            ("fix it --check   ", "--check needs a command"),
        ];
        for (arg, want) in cases {
            let e = error(arg);
            assert!(e.starts_with("/goal: "), "{e}");
            assert!(e.contains(want), "{arg:?}: {e}");
            assert!(e.contains(GOAL_USAGE), "{e}");
        }
    }

    #[test]
    fn words_alone_show_clear_or_resume() {
        assert_eq!(GoalCommand::parse(None), GoalCommand::Show);
        assert_eq!(parse("clear"), GoalCommand::Clear);
        assert_eq!(parse("resume"), GoalCommand::Resume);
        assert_eq!(parse("continue"), GoalCommand::Resume);
    }
}
