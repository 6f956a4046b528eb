//! Which scripted reply answers a request.

use std::sync::Mutex;

use crate::checks::{RequestKind, Violation, ViolationKind};
use crate::server::{lock, RecordedRequest};
use crate::wire::Dialect;
use crate::Reply;

pub(crate) type Handler = dyn Fn(&RecordedRequest, usize) -> Reply + Send + Sync;

/// The replies a test scripted.
pub(crate) struct Script {
    pub answers: Answers,
    /// Replies that answer every request of their kind the script has no
    /// single reply for (titles a front end may ask for at any time).
    pub standing: Vec<Reply>,
}

pub(crate) enum Answers {
    /// Replies used once each: the first one for the request's kind.
    Queue(Mutex<Vec<Reply>>),
    /// A reply computed from each request and its index.
    Handler(Box<Handler>),
}

fn refusal(why: &str) -> Reply {
    let body = serde_json::json!({"error": {"message": format!("fake provider: {why}")}});
    Reply::status(500, &body.to_string())
}

impl Script {
    /// The dialect the scripted streams speak, when they say.
    pub fn dialect(&self) -> Option<Dialect> {
        let queued = match &self.answers {
            Answers::Queue(q) => lock(q).iter().find_map(|r| r.dialect),
            Answers::Handler(_) => None,
        };
        queued.or_else(|| self.standing.iter().find_map(|r| r.dialect))
    }

    /// The reply for `req`, and the violation when none fits.
    pub fn answer(&self, req: &RecordedRequest, index: usize) -> (Reply, Option<Violation>) {
        let violation = |kind, detail: String| Violation {
            request: Some(index),
            kind,
            detail,
        };
        let standing = || self.standing.iter().find(|r| r.kind() == req.kind).cloned();
        match &self.answers {
            Answers::Queue(q) => {
                let mut q = lock(q);
                let found = q.iter().position(|r| r.kind() == req.kind);
                match found.map(|at| q.remove(at)).or_else(standing) {
                    Some(reply) => (reply, None),
                    None if req.kind.is_side() => (
                        refusal(&format!("no {:?} reply scripted", req.kind)),
                        Some(violation(
                            ViolationKind::UnexpectedSideRequest,
                            format!(
                                "a {:?} request, and the test scripted no reply for one",
                                req.kind
                            ),
                        )),
                    ),
                    None => (
                        refusal(&format!("script exhausted at request {index}")),
                        Some(violation(
                            ViolationKind::ScriptExhausted,
                            format!(
                                "a turn request after the script ran out ({} side replies left)",
                                q.len()
                            ),
                        )),
                    ),
                }
            }
            Answers::Handler(h) => {
                if let Some(reply) = standing() {
                    return (reply, None);
                }
                let reply = h(req, index);
                let unexpected = req.kind.is_side() && reply.kind() != req.kind;
                let v = unexpected.then(|| {
                    violation(
                        ViolationKind::UnexpectedSideRequest,
                        format!(
                            "a {:?} request, and the handler's reply is not marked for one",
                            req.kind
                        ),
                    )
                });
                (reply, v)
            }
        }
    }

    /// Appends a reply (queue scripts only).
    pub fn push(&self, reply: Reply) {
        if let Answers::Queue(q) = &self.answers {
            lock(q).push(reply);
        }
    }

    /// How many replies were never used, by kind.
    pub fn unused(&self) -> Vec<RequestKind> {
        match &self.answers {
            Answers::Queue(q) => lock(q).iter().map(Reply::kind).collect(),
            Answers::Handler(_) => Vec::new(),
        }
    }
}
