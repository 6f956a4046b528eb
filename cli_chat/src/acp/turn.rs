//! One prompt turn on its own thread: the engine's stream becomes
//! `session/update`s, each approval the engine asks for becomes a
//! `session/request_permission` whose answer is the approval, and the
//! turn's end becomes the `session/prompt` response.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ai_chat_engine::protocol::ErrorKind;
use ai_chat_engine::{ApprovalReply, CancelHandle, Event};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use serde_json::Value;

use super::rpc::{Answer, Peer, RpcError, INTERNAL_ERROR};
use super::tools;
use super::updates::Translator;
use super::wire::{
    PermissionOption, PermissionOutcome, PermissionParams, PermissionResult, PromptResult,
    SessionUpdate, StopReason, ToolKind, UpdateParams,
};

/// How often a wait for the client's permission answer looks whether the
/// turn was cancelled meanwhile.
const POLL: Duration = Duration::from_millis(25);

/// The choices of every permission request, in the order they are shown.
const OPTIONS: [PermissionOption; 3] = [
    PermissionOption {
        option_id: "allow_once",
        name: "Allow once",
        kind: "allow_once",
    },
    PermissionOption {
        option_id: "allow_always",
        name: "Always allow in this conversation",
        kind: "allow_always",
    },
    PermissionOption {
        option_id: "reject_once",
        name: "Reject",
        kind: "reject_once",
    },
];

/// The approvals "always" granted in one session: a tool by name, or for
/// commands, the exact command (allowing one command says nothing of
/// others).
pub type Always = Arc<Mutex<HashSet<String>>>;

/// What an "always" answer covers for a call of tool `name` asked as
/// `summary`.
fn always_key(name: &str, summary: &str) -> String {
    if tools::kind_of(name) == ToolKind::Execute {
        format!("{name}\n{summary}")
    } else {
        name.to_string()
    }
}

/// A running turn's state, shared with the session that started it.
pub struct Turn {
    /// Where updates and the response go.
    pub peer: Arc<Peer>,
    /// The session's id.
    pub session_id: String,
    /// The `session/prompt` request to answer.
    pub request_id: Value,
    /// Events to updates.
    pub translator: Translator,
    /// The engine's handle of this turn.
    pub cancel: CancelHandle,
    /// Set when the client sent `session/cancel`.
    pub cancelled: Arc<AtomicBool>,
    /// Cleared just before the response goes out, so a client that sends
    /// its next prompt at once finds the session free.
    pub running: Arc<AtomicBool>,
    /// The session's standing approvals.
    pub always: Always,
    /// The context window, in tokens (for usage updates).
    pub window: u64,
}

impl Turn {
    /// Runs the turn to its end and answers the prompt.
    pub fn run(mut self, rx: &Receiver<Event>) {
        let answer = self.drive(rx);
        self.running.store(false, Ordering::SeqCst);
        let _ = self.peer.respond(&self.request_id, answer);
    }

    fn drive(&mut self, rx: &Receiver<Event>) -> Answer {
        for msg in rx.iter() {
            match msg {
                Event::ApprovalAsked {
                    id: Some(id),
                    summary,
                    detail,
                } => self.gate(&id, &summary, &detail),
                Event::Done => return self.stop(StopReason::EndTurn),
                Event::Error { kind, message } => return self.ended(kind, &message),
                other => {
                    for update in self.translator.updates(&other) {
                        self.send(&update);
                    }
                    if matches!(other, Event::Usage { .. }) && self.window > 0 {
                        self.send(&SessionUpdate::UsageUpdate {
                            used: self.translator.context_tokens,
                            size: self.window,
                        });
                    }
                }
            }
        }
        if self.cancelled.load(Ordering::SeqCst) {
            return self.stop(StopReason::Cancelled);
        }
        Err(RpcError::new(
            INTERNAL_ERROR,
            "the engine stopped without finishing the turn",
        ))
    }

    fn send(&self, update: &SessionUpdate) {
        let params = UpdateParams {
            session_id: &self.session_id,
            update,
        };
        if self.peer.notify("session/update", &params).is_err() {
            // The client is gone: nobody to show the rest to.
            self.cancel.cancel();
        }
    }

    /// The response for a turn that ended as `reason` (a cancelled turn
    /// says so whatever the engine's last word was, as ACP asks).
    fn stop(&self, reason: StopReason) -> Answer {
        let reason = if self.cancelled.load(Ordering::SeqCst) {
            StopReason::Cancelled
        } else {
            reason
        };
        serde_json::to_value(PromptResult {
            stop_reason: reason,
        })
        .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))
    }

    fn ended(&self, kind: ErrorKind, message: &str) -> Answer {
        match stop_reason(kind, message) {
            Some(reason) => self.stop(reason),
            None if self.cancelled.load(Ordering::SeqCst) => self.stop(StopReason::Cancelled),
            None => Err(RpcError::new(INTERNAL_ERROR, message.to_string())),
        }
    }

    /// Asks the client about call `id` (unless this conversation already
    /// allows it always) and hands the answer to the engine.
    fn gate(&mut self, id: &str, summary: &str, detail: &str) {
        let name = self.translator.name_of(id).unwrap_or_default().to_string();
        let key = always_key(&name, summary);
        let standing = self
            .always
            .lock()
            .map(|set| set.contains(&key))
            .unwrap_or(false);
        let approved = standing || self.ask(id, summary, detail, key);
        let reply = if approved {
            ApprovalReply::Approve
        } else {
            ApprovalReply::Deny
        };
        self.cancel.approve(id, reply);
        if approved {
            self.send(&self.translator.running(id));
        }
    }

    /// Sends `session/request_permission` and waits for the answer, or for
    /// the turn to be cancelled (then: no).
    fn ask(&self, id: &str, summary: &str, detail: &str, key: String) -> bool {
        let params = PermissionParams {
            session_id: &self.session_id,
            tool_call: self.translator.asking(id, summary, detail),
            options: OPTIONS.to_vec(),
        };
        let rx = self.peer.request("session/request_permission", &params);
        let answer = loop {
            match rx.recv_timeout(POLL) {
                Ok(answer) => break answer,
                Err(RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => return false,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return false,
            }
        };
        let Ok(result) = answer.and_then(|v| {
            serde_json::from_value::<PermissionResult>(v)
                .map_err(|e| RpcError::invalid_params(e.to_string()))
        }) else {
            return false;
        };
        match result.outcome {
            PermissionOutcome::Selected { option_id } => match option_id.as_str() {
                "allow_once" => true,
                "allow_always" => {
                    if let Ok(mut set) = self.always.lock() {
                        set.insert(key);
                    }
                    true
                }
                _ => false,
            },
            PermissionOutcome::Cancelled => false,
        }
    }
}

/// The ACP stop reason for a turn that ended with an error of `kind`,
/// when ACP has one (other failures are the prompt's error). An early
/// stop's message names the provider's reason (`length`, `max_tokens`).
fn stop_reason(kind: ErrorKind, message: &str) -> Option<StopReason> {
    match kind {
        ErrorKind::Cancelled => Some(StopReason::Cancelled),
        ErrorKind::RoundLimit => Some(StopReason::MaxTurnRequests),
        ErrorKind::Refused => Some(StopReason::Refusal),
        ErrorKind::OutputCap => Some(StopReason::MaxTokens),
        ErrorKind::Incomplete if message.contains("length") || message.contains("max") => {
            Some(StopReason::MaxTokens)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_covers_a_tool_or_one_command() {
        assert_eq!(
            always_key("fs_patch", "a.txt"),
            always_key("fs_patch", "b.txt")
        );
        assert_ne!(
            always_key("shell_exec", "rm -rf build"),
            always_key("shell_exec", "make")
        );
    }

    /// The stop reason for the event an engine error ends a turn with.
    fn reason_of(e: ai_chat_engine::EngineError) -> Option<StopReason> {
        match e.to_event() {
            Event::Error { kind, message } => stop_reason(kind, &message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn engine_ends_map_to_stop_reasons() {
        use ai_chat_engine::EngineError;
        assert_eq!(
            reason_of(EngineError::Cancelled),
            Some(StopReason::Cancelled)
        );
        assert_eq!(
            reason_of(EngineError::RoundLimit { rounds: 3 }),
            Some(StopReason::MaxTurnRequests)
        );
        assert_eq!(
            reason_of(EngineError::Incomplete {
                reason: "max_tokens".into()
            }),
            Some(StopReason::MaxTokens)
        );
        assert_eq!(
            reason_of(EngineError::Incomplete {
                reason: "content_filter".into()
            }),
            None
        );
        assert_eq!(reason_of(EngineError::Network("x".into())), None);
    }
}
