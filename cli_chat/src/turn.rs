//! Drives one turn: reads the engine's [`Event`]s, shows them, answers
//! approval requests, and turns Ctrl+C into a prompt cancel.

use std::io;
use std::time::{Duration, Instant};

use ai_chat_engine::{ApprovalReply, CancelHandle};
use crossbeam_channel::{Receiver, RecvTimeoutError};

use crate::approval::Approver;
use crate::interrupt::Interrupts;
use crate::render::Output;
use koi_protocol::{DecidedBy, ErrorKind, Event};

/// How often the loop looks at the Ctrl+C flag while waiting for the
/// engine: short enough to feel instant, long enough to cost nothing.
const POLL: Duration = Duration::from_millis(25);

/// How long to wait for the engine to confirm a cancel. It promises
/// 100 ms; anything far beyond that means it is stuck, and `k` leaves.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// How a turn ended, as far as `k` is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnOutcome {
    /// `Done`.
    Done,
    /// The engine ended the turn with an error of this kind.
    Failed(ErrorKind),
    /// The user pressed Ctrl+C (the turn was cancelled).
    Interrupted,
    /// stdout went away (e.g. `k … | head -1`); the turn was cancelled.
    OutputClosed,
    /// The engine stopped sending without ending the turn.
    Lost,
}

/// Token counts summed over a turn's rounds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Input tokens, cached included.
    pub input: u64,
    /// Cached input tokens.
    pub cached_input: u64,
    /// Output tokens.
    pub output: u64,
}

impl Tokens {
    /// Adds another count.
    pub fn add(&mut self, other: Tokens) {
        self.input += other.input;
        self.cached_input += other.cached_input;
        self.output += other.output;
    }
}

/// What a turn produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnResult {
    /// How it ended.
    pub outcome: TurnOutcome,
    /// Tokens used.
    pub tokens: Tokens,
}

/// Everything the loop needs besides the stream itself.
pub struct Driver<'a> {
    /// Where events are shown.
    pub output: &'a mut dyn Output,
    /// Who answers approval requests.
    pub approver: &'a mut dyn Approver,
    /// Ctrl+C.
    pub interrupts: &'a Interrupts,
}

impl Driver<'_> {
    /// Runs the turn to its end.
    pub fn drive(&mut self, rx: &Receiver<Event>, cancel: &CancelHandle) -> TurnResult {
        let mut tokens = Tokens::default();
        let mut stop: Option<TurnOutcome> = None;
        let mut stop_at: Option<Instant> = None;
        loop {
            if stop_at.is_none() && stop.is_some() {
                stop_at = Some(Instant::now());
            }
            if stop_at.is_some_and(|t| t.elapsed() > CANCEL_GRACE) {
                // The engine did not confirm the cancel in time: leave anyway.
                return TurnResult {
                    outcome: stop.unwrap_or(TurnOutcome::Lost),
                    tokens,
                };
            }
            if self.interrupts.take() {
                if stop.is_some() {
                    // A second Ctrl+C while waiting for the cancel: leave now.
                    return TurnResult {
                        outcome: TurnOutcome::Interrupted,
                        tokens,
                    };
                }
                cancel.cancel();
                stop = Some(TurnOutcome::Interrupted);
            }
            let msg = match rx.recv_timeout(POLL) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    if stop.is_none() && self.output.tick().is_err() {
                        cancel.cancel();
                        stop = Some(TurnOutcome::OutputClosed);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return TurnResult {
                        outcome: stop.unwrap_or(TurnOutcome::Lost),
                        tokens,
                    }
                }
            };
            let event = match msg {
                Event::ApprovalAsked {
                    id: Some(ref id),
                    ref summary,
                    ref detail,
                } => {
                    let (id, summary, detail) = (id.clone(), summary.clone(), detail.clone());
                    if self.show(&msg, cancel, &mut stop).is_err() {
                        cancel.approve(&id, ApprovalReply::Deny);
                        break;
                    }
                    let (approved, by) = if stop.is_some() {
                        (false, DecidedBy::Interrupt)
                    } else {
                        self.approver.ask(&summary, &detail)
                    };
                    let answer = if approved {
                        ApprovalReply::Approve
                    } else {
                        ApprovalReply::Deny
                    };
                    // The engine may have given up waiting (timeout, cancel).
                    cancel.approve(&id, answer);
                    if by == DecidedBy::Interrupt && stop.is_none() {
                        cancel.cancel();
                        stop = Some(TurnOutcome::Interrupted);
                    }
                    Event::ApprovalDecided {
                        id: Some(id),
                        approved,
                        by,
                    }
                }
                Event::Done => {
                    let _ = self.show(&Event::Done, cancel, &mut stop);
                    return TurnResult {
                        outcome: stop.unwrap_or(TurnOutcome::Done),
                        tokens,
                    };
                }
                Event::Error { kind, .. } => {
                    let outcome = match stop {
                        Some(s) => s,
                        None => {
                            let _ = self.show(&msg, cancel, &mut stop);
                            TurnOutcome::Failed(kind)
                        }
                    };
                    return TurnResult { outcome, tokens };
                }
                other => {
                    if let Event::Usage {
                        input,
                        cached_input,
                        output,
                        ..
                    } = &other
                    {
                        tokens.add(Tokens {
                            input: *input,
                            cached_input: *cached_input,
                            output: *output,
                        });
                    }
                    match plain_event(other) {
                        Some(ev) => ev,
                        None => continue,
                    }
                }
            };
            if self.show(&event, cancel, &mut stop).is_err() {
                break;
            }
        }
        // stdout is gone: the turn was cancelled; wait briefly for the engine.
        wait_for_end(rx, cancel);
        TurnResult {
            outcome: TurnOutcome::OutputClosed,
            tokens,
        }
    }

    /// Shows an event unless the turn is being abandoned; a write error
    /// cancels the turn.
    fn show(
        &mut self,
        ev: &Event,
        cancel: &CancelHandle,
        stop: &mut Option<TurnOutcome>,
    ) -> io::Result<()> {
        if stop.is_some() {
            return Ok(());
        }
        let r = self.output.event(ev);
        if r.is_err() {
            cancel.cancel();
            *stop = Some(TurnOutcome::OutputClosed);
        }
        r
    }
}

/// The event as shown, for one that needs no answer (None for the ones
/// the loop handles itself).
fn plain_event(msg: Event) -> Option<Event> {
    match msg {
        Event::ApprovalAsked { id: Some(_), .. } | Event::Done | Event::Error { .. } => None,
        other => Some(other),
    }
}

/// Drains the stream until the turn ends or [`CANCEL_GRACE`] passes,
/// denying any approval still asked for.
fn wait_for_end(rx: &Receiver<Event>, turn: &CancelHandle) {
    let deadline = Instant::now() + CANCEL_GRACE;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(m) if m.is_terminal() => return,
            Ok(Event::ApprovalAsked { id: Some(id), .. }) => {
                turn.approve(&id, ApprovalReply::Deny);
            }
            Ok(_) => {}
            Err(_) => return,
        }
    }
}
