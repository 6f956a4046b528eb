//! What a goal may spend: the defaults, and the limits a user names for
//! one goal (`k --goal-turns N`, `/goal … --turns N`), read and checked
//! here for both.

use std::num::{IntErrorKind, NonZeroU32, NonZeroU64, ParseIntError};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Turns a goal may take unless the user says otherwise: enough for an
/// investigate-fix-test cycle to go round several times.
pub const DEFAULT_MAX_TURNS: u32 = 10;

/// Tokens (input + output, cached input included) a goal may spend by
/// default: a few long turns on a hosted model.
pub const DEFAULT_MAX_TOKENS: u64 = 2_000_000;

/// Wall time a goal may take by default.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(60 * 60);

/// The most minutes a limit may name (their seconds must fit a `u64`).
const MAX_MINUTES: u64 = u64::MAX / 60;

/// What a goal may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalBudget {
    /// Turns (each ends with the model's answer and a check).
    pub max_turns: u32,
    /// Tokens, input and output.
    pub max_tokens: u64,
    /// Seconds of wall time spent in turns and checks.
    pub max_secs: u64,
}

impl Default for GoalBudget {
    fn default() -> Self {
        GoalBudget {
            max_turns: DEFAULT_MAX_TURNS,
            max_tokens: DEFAULT_MAX_TOKENS,
            max_secs: DEFAULT_MAX_TIME.as_secs(),
        }
    }
}

/// The limits a user named for one goal; each one left out falls back
/// (see [`BudgetLimits::or`]) and in the end keeps the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BudgetLimits {
    /// Most turns.
    pub turns: Option<NonZeroU32>,
    /// Most tokens, input and output.
    pub tokens: Option<NonZeroU64>,
    /// Most minutes of wall time.
    pub minutes: Option<NonZeroU64>,
}

impl BudgetLimits {
    /// Each limit as named here, else as named in `fallback`.
    pub fn or(self, fallback: BudgetLimits) -> BudgetLimits {
        BudgetLimits {
            turns: self.turns.or(fallback.turns),
            tokens: self.tokens.or(fallback.tokens),
            minutes: self.minutes.or(fallback.minutes),
        }
    }

    /// The default budget with these limits in place.
    pub fn budget(self) -> GoalBudget {
        let d = GoalBudget::default();
        GoalBudget {
            max_turns: self.turns.map_or(d.max_turns, NonZeroU32::get),
            max_tokens: self.tokens.map_or(d.max_tokens, NonZeroU64::get),
            max_secs: self
                .minutes
                .map_or(d.max_secs, |m| m.get().saturating_mul(60)),
        }
    }
}

/// A turn limit as typed: a whole number above 0.
pub fn parse_turns(value: &str) -> Result<NonZeroU32, String> {
    parse_count(value, "turns")
}

/// A token limit as typed: a whole number above 0.
pub fn parse_tokens(value: &str) -> Result<NonZeroU64, String> {
    parse_count(value, "tokens")
}

/// A time limit in minutes as typed: a whole number above 0 whose
/// seconds can be counted.
pub fn parse_minutes(value: &str) -> Result<NonZeroU64, String> {
    let minutes: NonZeroU64 = parse_count(value, "minutes")?;
    if minutes.get() > MAX_MINUTES {
        return Err(too_large(MAX_MINUTES, "minutes"));
    }
    Ok(minutes)
}

/// `value` as a count of `unit` above 0, or why it is not one (the
/// caller names the value and where it was typed).
fn parse_count<T>(value: &str, unit: &str) -> Result<T, String>
where
    T: FromStr<Err = ParseIntError> + Bounded,
{
    value.parse().map_err(|e: ParseIntError| match e.kind() {
        IntErrorKind::Zero => format!("a goal needs at least 1 of its {unit}"),
        IntErrorKind::PosOverflow => too_large(T::MAX, unit),
        _ => format!("not a whole number of {unit}"),
    })
}

fn too_large(max: u64, unit: &str) -> String {
    format!("too large (at most {max} {unit})")
}

/// The largest value a limit's type holds, for the error that names it.
trait Bounded {
    const MAX: u64;
}

impl Bounded for NonZeroU32 {
    const MAX: u64 = u32::MAX as u64;
}

impl Bounded for NonZeroU64 {
    const MAX: u64 = u64::MAX;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_fall_back_in_turn_and_then_keep_the_defaults() {
        let named = BudgetLimits {
            turns: NonZeroU32::new(3),
            ..BudgetLimits::default()
        };
        let fallback = BudgetLimits {
            turns: NonZeroU32::new(7),
            minutes: NonZeroU64::new(2),
            ..BudgetLimits::default()
        };
        let budget = named.or(fallback).budget();
        assert_eq!(budget.max_turns, 3);
        assert_eq!(budget.max_secs, 120);
        assert_eq!(budget.max_tokens, DEFAULT_MAX_TOKENS);
        assert_eq!(BudgetLimits::default().budget(), GoalBudget::default());
    }

    #[test]
    fn a_limit_is_a_whole_number_above_zero_that_fits() {
        assert_eq!(parse_turns("4").unwrap().get(), 4);
        assert_eq!(parse_tokens("5000").unwrap().get(), 5000);
        assert_eq!(parse_minutes("90").unwrap().get(), 90);
        let cases = [
            (parse_turns("0"), "at least 1 of its turns"),
            (parse_turns("three"), "not a whole number of turns"),
            (parse_turns("-2"), "not a whole number"),
            (parse_turns("1.5"), "not a whole number"),
            (
                parse_turns("4294967296"),
                "too large (at most 4294967295 turns)",
            ),
        ];
        for (got, want) in cases {
            assert!(got.unwrap_err().contains(want), "{want}");
        }
        assert!(parse_tokens("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        let minutes = parse_minutes(&(MAX_MINUTES + 1).to_string()).unwrap_err();
        assert!(minutes.contains("too large"), "{minutes}");
        assert_eq!(
            parse_minutes(&MAX_MINUTES.to_string()).unwrap().get(),
            MAX_MINUTES
        );
    }
}
