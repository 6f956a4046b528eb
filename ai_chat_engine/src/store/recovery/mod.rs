//! The recovery planner: a pure function from the durable events of a
//! conversation to the one safe next step. The engine asks it after every
//! step of a live turn and when it resumes after a crash, so both follow
//! the same rules:
//!
//! - no commit, no action: a round that streamed but never committed is a
//!   draft, thrown away;
//! - committed but not started: the call still goes through the gate
//!   (an approval asked and never answered is asked again);
//! - started without a receipt: when the policy proved the call
//!   read-only it cannot have changed anything, so it runs again;
//!   otherwise its effect is uncertain and nothing goes on until the
//!   user decides (*ambiguity never auto-repeats*);
//! - all calls settled: the model is called; an answer with no calls, or
//!   a turn's end, means idle.

use crate::message::ToolCall;
use crate::store::session_log::{Entry, Record, StartProof, UncertainDecision};

/// A call whose effect is unknown: it started and never reported back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncertainCall {
    /// The call as the model made it.
    pub call: ToolCall,
    /// When it started (RFC 3339, from its start record).
    pub started_at: String,
    /// The tag its processes carried, if recorded.
    pub run_tag: Option<String>,
}

/// A committed call that is to run now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCall {
    /// The call.
    pub call: ToolCall,
    /// The user already allowed it (an approval, or a rerun decision):
    /// the gate must not ask again.
    pub approved: bool,
    /// It started before and is run again (proven read-only, or the user
    /// chose to rerun it).
    pub rerun: bool,
}

/// Why a call is settled without running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// The user abandoned the uncertain call.
    Abandoned,
    /// The user (or a timeout) declined its approval.
    Denied,
}

/// The one safe next step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A round streamed and never committed: discard it.
    DiscardDraft,
    /// A call's fate is decided but its result was never written: write it.
    Close {
        /// The call.
        call: ToolCall,
        /// What was decided.
        reason: CloseReason,
    },
    /// Calls whose effect is unknown: the user must choose rerun or
    /// abandon for each before anything else happens.
    ResolveUncertain(Vec<UncertainCall>),
    /// An approval was asked and never answered: ask again.
    AskAgain(ToolCall),
    /// Committed calls to run (through the gate), in order.
    RunCalls(Vec<PendingCall>),
    /// Every call is settled, or a question waits: call the model.
    CallModel,
    /// Nothing to do until the user says something.
    Idle,
}

/// What the log says about one call of the latest round.
#[derive(Debug, Clone)]
struct CallState {
    call: ToolCall,
    approval: Approval,
    started: Option<(String, StartProof, Option<String>)>,
    has_result: bool,
    decision: Option<UncertainDecision>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Approval {
    NotAsked,
    Asked,
    Approved,
    Denied,
}

impl CallState {
    fn uncertain(&self) -> Option<UncertainCall> {
        let (ts, proof, tag) = self.started.as_ref()?;
        (!self.has_result && *proof != StartProof::ReadOnly && self.decision.is_none()).then(|| {
            UncertainCall {
                call: self.call.clone(),
                started_at: ts.clone(),
                run_tag: tag.clone(),
            }
        })
    }
}

/// The state of the conversation's tail, folded from its records.
#[derive(Debug, Default)]
struct Tail {
    /// The latest round's calls (empty when it had none or was closed).
    calls: Vec<CallState>,
    /// A round began streaming and has not committed.
    draft: bool,
    /// A user message (or a settled round) waits for the model.
    awaiting_model: bool,
    /// Started calls a format-1 log closed with a synthetic result and no
    /// decision (see [`unresolved_uncertain`]).
    legacy_uncertain: Vec<UncertainCall>,
}

impl Tail {
    /// The conversation went on past the round: only a format-1 log (or
    /// a turn's end after every result) does that.
    fn close_round(&mut self) {
        for c in self.calls.drain(..) {
            if let Some(u) = c.uncertain() {
                self.legacy_uncertain.push(u);
            }
        }
    }

    fn call(&mut self, id: &str) -> Option<&mut CallState> {
        self.calls.iter_mut().find(|c| c.call.id == id)
    }

    fn fold(records: &[Record]) -> Tail {
        let mut t = Tail::default();
        for r in records {
            match &r.entry {
                Entry::User { .. } => {
                    t.close_round();
                    t.draft = false;
                    t.awaiting_model = true;
                }
                Entry::Draft { .. } => t.draft = true,
                Entry::DraftDiscarded => t.draft = false,
                Entry::Assistant {
                    tool_calls, finish, ..
                } => {
                    t.close_round();
                    t.draft = false;
                    // A paused round is carried on by the next request.
                    t.awaiting_model = finish == crate::model::providers::anthropic::PAUSE_TURN;
                    t.calls = tool_calls
                        .iter()
                        .map(|c| CallState {
                            call: c.clone(),
                            approval: Approval::NotAsked,
                            started: None,
                            has_result: false,
                            decision: None,
                        })
                        .collect();
                }
                Entry::ApprovalAsked { call_id, .. } => {
                    if let Some(c) = t.call(call_id) {
                        c.approval = Approval::Asked;
                    }
                }
                Entry::ApprovalDecided {
                    call_id, approved, ..
                } => {
                    if let Some(c) = t.call(call_id) {
                        c.approval = if *approved {
                            Approval::Approved
                        } else {
                            Approval::Denied
                        };
                    }
                }
                Entry::ToolStart {
                    call_id,
                    proof,
                    run_tag,
                    ..
                } => {
                    let ts = r.ts.clone();
                    if let Some(c) = t.call(call_id) {
                        c.started = Some((ts, *proof, run_tag.clone()));
                        // A rerun's own start: its outcome is open again.
                        c.decision = None;
                    }
                }
                Entry::ToolResult { call_id, .. } => {
                    if let Some(c) = t.call(call_id) {
                        c.has_result = true;
                    }
                }
                Entry::UncertainDecided { call_id, decision } => {
                    if let Some(c) = t.call(call_id) {
                        c.decision = Some(*decision);
                    } else {
                        t.legacy_uncertain.retain(|u| &u.call.id != call_id);
                    }
                }
                Entry::TurnEnd { .. } => {
                    t.close_round();
                    t.draft = false;
                    t.awaiting_model = false;
                }
                Entry::Notice { .. } | Entry::Summary { .. } => {
                    // Written only between rounds; a format-1 log may have
                    // one after a crash's open round.
                    t.close_round();
                }
                // A program's call: its program's own start and result
                // decide what becomes of the turn.
                Entry::Meta { .. }
                | Entry::CodeCallResult { .. }
                | Entry::Context(_)
                | Entry::Environment { .. }
                | Entry::Usage { .. }
                | Entry::Trimmed { .. }
                | Entry::CompactionFailed { .. }
                | Entry::Goal(_)
                | Entry::Title { .. }
                | Entry::Media { .. } => {}
            }
        }
        t
    }
}

/// The one safe next step for a conversation whose durable events are
/// `records`.
pub fn plan(records: &[Record]) -> Step {
    let tail = Tail::fold(records);
    if tail.draft {
        return Step::DiscardDraft;
    }
    let uncertain: Vec<UncertainCall> =
        tail.calls.iter().filter_map(CallState::uncertain).collect();
    if !uncertain.is_empty() {
        return Step::ResolveUncertain(uncertain);
    }
    let mut run = Vec::new();
    for c in tail.calls.iter().filter(|c| !c.has_result) {
        let reason = match (c.decision, c.approval) {
            (Some(UncertainDecision::Abandon), _) => Some(CloseReason::Abandoned),
            (None, Approval::Denied) if c.started.is_none() => Some(CloseReason::Denied),
            _ => None,
        };
        if let Some(reason) = reason {
            if run.is_empty() {
                return Step::Close {
                    call: c.call.clone(),
                    reason,
                };
            }
            break;
        }
        if c.approval == Approval::Asked && c.started.is_none() {
            if run.is_empty() {
                return Step::AskAgain(c.call.clone());
            }
            break;
        }
        run.push(PendingCall {
            call: c.call.clone(),
            approved: c.approval == Approval::Approved
                || c.decision == Some(UncertainDecision::Rerun),
            rerun: c.started.is_some(),
        });
    }
    if !run.is_empty() {
        return Step::RunCalls(run);
    }
    if !tail.calls.is_empty() || tail.awaiting_model {
        return Step::CallModel;
    }
    Step::Idle
}

/// Started calls with no result of their own and no decision: the open
/// round's uncertain calls, and those a format-1 log closed with a
/// synthetic "uncertain" result when the conversation went on. While one
/// is unresolved, the model issuing the same call again is refused.
pub fn unresolved_uncertain(records: &[Record]) -> Vec<UncertainCall> {
    let mut tail = Tail::fold(records);
    let open: Vec<UncertainCall> = tail.calls.iter().filter_map(CallState::uncertain).collect();
    tail.legacy_uncertain.extend(open);
    tail.legacy_uncertain
}

#[cfg(test)]
mod tests;
