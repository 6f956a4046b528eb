//! Deciding interrupted calls before a conversation goes on: `--rerun` /
//! `--abandon` flags first, then a prompt on the terminal; with neither,
//! `k` refuses to continue and says how to decide. It never picks for the
//! user.

use ai_chat_engine::{Conversation, Engine, UncertainCall, UncertainDecision};
use anyhow::{bail, Result};

use crate::approval::TtyApprover;
use crate::render::Style;
use koi_protocol::Event;

/// The decisions given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// Calls to run again.
    pub rerun: Vec<String>,
    /// Calls to give up.
    pub abandon: Vec<String>,
}

/// One call as the user sees it: tool, full arguments (secrets masked),
/// when it started.
pub fn describe(engine: &Engine, u: &UncertainCall, style: Style) -> String {
    let mut s = format!(
        "\n{} call {} ({}) started {} and never reported back; it may have partly run.\n",
        style.yellow("interrupted:"),
        u.call.id,
        u.call.name,
        u.started_at
    );
    for line in engine.masked_arguments(&u.call.arguments).lines() {
        s.push_str("  ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// Reads `r`/`rerun` or `a`/`abandon`; anything else asks again.
fn parse_choice(answer: &str) -> Option<UncertainDecision> {
    match answer.trim().to_ascii_lowercase().as_str() {
        "r" | "rerun" => Some(UncertainDecision::Rerun),
        "a" | "abandon" => Some(UncertainDecision::Abandon),
        _ => None,
    }
}

/// Applies `flags`, then asks on the terminal (when `tty` is given) about
/// the rest. Returns the calls still undecided.
pub fn resolve(
    engine: &Engine,
    conv: &Conversation,
    flags: &Flags,
    tty: Option<&mut TtyApprover>,
) -> Result<Vec<UncertainCall>> {
    let open = conv.uncertain_calls();
    let given = flags
        .rerun
        .iter()
        .map(|id| (id, UncertainDecision::Rerun))
        .chain(
            flags
                .abandon
                .iter()
                .map(|id| (id, UncertainDecision::Abandon)),
        );
    for (id, decision) in given {
        if !open.iter().any(|u| &u.call.id == id) {
            let ids: Vec<&str> = open.iter().map(|u| u.call.id.as_str()).collect();
            bail!(
                "{id:?} is not an undecided interrupted call of session {} (undecided: {})",
                conv.id(),
                if ids.is_empty() {
                    "none".to_string()
                } else {
                    ids.join(", ")
                }
            );
        }
        conv.decide_uncertain(id, decision)?;
    }
    let mut left = conv.uncertain_calls();
    let Some(tty) = tty else {
        return Ok(left);
    };
    let style = Style::for_stderr();
    while let Some(u) = left.first().cloned() {
        let shown = describe(engine, &u, style);
        let Some(answer) = tty.ask_line(&shown, "Run it again or abandon it? [r/a] ") else {
            break;
        };
        if let Some(decision) = parse_choice(&answer) {
            conv.decide_uncertain(&u.call.id, decision)?;
            left.remove(0);
        }
    }
    Ok(left)
}

/// How to decide, for the user who was not asked.
pub fn how_to_decide(session: &str, calls: &[UncertainCall]) -> String {
    let first = calls.first().map_or("CALL", |u| u.call.id.as_str());
    format!(
        "{} interrupted call(s) may have partly run, and nothing continues until you decide each \
         one: `k --resume {session} --rerun {first}` runs it again, `k --resume {session} \
         --abandon {first}` gives it up (the model is told its effect is unknown)",
        calls.len()
    )
}

/// The `uncertain` events for `--json`.
pub fn events(engine: &Engine, session: &str, calls: &[UncertainCall]) -> Vec<Event> {
    calls
        .iter()
        .map(|u| Event::Uncertain {
            session: session.to_string(),
            id: u.call.id.clone(),
            name: u.call.name.clone(),
            arguments: engine.masked_arguments(&u.call.arguments),
            started_at: u.started_at.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clear_choice_decides() {
        assert_eq!(parse_choice(" R\n"), Some(UncertainDecision::Rerun));
        assert_eq!(parse_choice("abandon"), Some(UncertainDecision::Abandon));
        assert_eq!(parse_choice(""), None);
        assert_eq!(parse_choice("y"), None);
    }
}
