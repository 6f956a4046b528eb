//! The goal loop: a turn, the check, and either the end or a continue
//! prompt, until the goal completes, blocks or pauses.

use std::time::Instant;

use ai_tools::CancelToken;

use super::check::run_check;
use super::{CheckResult, Goal, GoalRecord, GoalSpec, GoalState, GoalUsage, BLOCKED_MARKER};
use crate::agent::Agent;
use crate::conversation::Conversation;
use crate::message::{untrusted, Message, UserInput};
use crate::store::session_log::Entry;
use crate::stream::emitter::Emitter;
use crate::stream::EngineError;

/// How a goal run begins.
pub(crate) enum GoalStart {
    /// A new goal (replacing any other).
    New(GoalSpec),
    /// Go on with the paused or blocked one.
    Continue,
}

fn opening_prompt(spec: &GoalSpec) -> String {
    format!(
        "[goal] {}\n\nWork toward this goal over as many turns as it takes. After each of your \
         answers koi runs the check `{}`; the goal is complete only when it exits 0, so do not \
         stop at a claim of success. If you cannot make progress without the user, answer with \
         a line that starts `{BLOCKED_MARKER}` and says why.",
        spec.objective, spec.check
    )
}

fn continue_prompt(spec: &GoalSpec, last: Option<&CheckResult>) -> String {
    let check = match last {
        Some(c) => format!(
            "The check `{}` failed ({}). The end of its output:\n{}",
            spec.check,
            c.ended,
            untrusted("command-output", "goal check", &c.output_tail)
        ),
        None => format!("The check `{}` has not passed yet.", spec.check),
    };
    format!(
        "[goal] Continue working toward the goal: {}\n\n{check}\n\nKeep going. If you cannot \
         make progress without the user, answer with a line that starts `{BLOCKED_MARKER}` and \
         says why.",
        spec.objective
    )
}

/// The reason after the marker in the model's latest answer, if it gave one.
fn blocked_reason(conv: &Conversation) -> Option<String> {
    let st = conv.lock();
    let answer = st.messages.iter().rev().find_map(|m| match m {
        Message::Assistant { text, .. } => Some(text.clone()),
        _ => None,
    })?;
    answer.lines().find_map(|l| {
        let rest = l.trim().strip_prefix(BLOCKED_MARKER)?;
        let reason = rest.trim();
        Some(if reason.is_empty() {
            "the model cannot continue".to_string()
        } else {
            format!("the model cannot continue: {reason}")
        })
    })
}

/// Sets the goal's state, records it, and tells the front end.
fn settle(conv: &Conversation, goal: &mut Goal, state: GoalState, em: &Emitter) {
    goal.state = state.clone();
    let mut st = conv.lock();
    st.goal = Some(goal.clone());
    st.record(Entry::Goal(GoalRecord::Progress {
        state,
        used: goal.used,
    }));
    drop(st);
    em.send(goal.to_event());
}

/// Runs a goal until it completes, blocks or pauses. `Ok` for complete
/// and blocked (the stream ends `Done`); the error that paused it
/// otherwise.
pub(crate) fn run_goal(
    agent: &Agent,
    conv: &Conversation,
    start: GoalStart,
    em: &Emitter,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let (mut goal, mut prompt) = match start {
        GoalStart::New(spec) => {
            let prompt = opening_prompt(&spec);
            let goal = Goal {
                spec: spec.clone(),
                state: GoalState::Active,
                used: GoalUsage::default(),
            };
            let mut st = conv.lock();
            st.goal = Some(goal.clone());
            st.record(Entry::Goal(GoalRecord::Set { spec }));
            (goal, prompt)
        }
        GoalStart::Continue => {
            let goal = conv.lock().goal.clone().ok_or_else(|| {
                EngineError::Session("this conversation has no goal to continue".into())
            })?;
            if goal.state == GoalState::Complete {
                return Err(EngineError::Session("the goal is already complete".into()));
            }
            let prompt = continue_prompt(&goal.spec, None);
            (goal, prompt)
        }
    };
    settle(conv, &mut goal, GoalState::Active, em);
    loop {
        if let Some(reason) = goal.exhausted() {
            settle(conv, &mut goal, GoalState::Blocked { reason }, em);
            return Ok(());
        }
        let began = Instant::now();
        let tokens_before = conv.lock().tokens_used();
        let input = UserInput::text(std::mem::take(&mut prompt));
        let result = agent.turn_recorded(conv, Some(input), em, cancel);
        goal.used.turns += 1;
        goal.used.tokens += conv.lock().tokens_used().saturating_sub(tokens_before);
        goal.used.secs += began.elapsed().as_secs();
        match result {
            // A long turn ran out of rounds: the next turn goes on.
            Ok(()) | Err(EngineError::RoundLimit { .. }) => {}
            Err(e) => {
                let reason = e.to_string();
                settle(conv, &mut goal, GoalState::Paused { reason }, em);
                return Err(e);
            }
        }
        if let Some(reason) = blocked_reason(conv) {
            settle(conv, &mut goal, GoalState::Blocked { reason }, em);
            return Ok(());
        }
        let began = Instant::now();
        let checked = run_check(agent.runner.registry(), &goal.spec.check, cancel);
        goal.used.secs += began.elapsed().as_secs();
        let result = match checked {
            Ok(r) => r,
            Err(e) => {
                let err = if cancel.is_cancelled() {
                    EngineError::Cancelled
                } else {
                    EngineError::Config(format!("the goal check could not run: {e}"))
                };
                let reason = err.to_string();
                settle(conv, &mut goal, GoalState::Paused { reason }, em);
                return Err(err);
            }
        };
        conv.record(Entry::Goal(GoalRecord::Checked {
            result: result.clone(),
        }));
        em.send(result.to_event());
        if result.passed {
            settle(conv, &mut goal, GoalState::Complete, em);
            return Ok(());
        }
        prompt = continue_prompt(&goal.spec, Some(&result));
    }
}
