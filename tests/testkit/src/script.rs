//! Which scripted reply answers a request.

use std::ops::RangeInclusive;
use std::sync::Mutex;

use crate::checks::{RequestKind, Violation, ViolationKind};
use crate::recorded::{lock, RecordedRequest};
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
    /// A reply computed from each request and its index, for as many
    /// requests as the test expects.
    Handler {
        handler: Box<Handler>,
        expected: Expect,
        /// Requests the handler answered so far.
        served: Mutex<usize>,
    },
}

/// How many requests a handler script expects to answer (every request
/// it is asked for, side requests included; a standing reply's are not
/// counted). A request beyond the most is refused and reported as
/// [`ViolationKind::ScriptExhausted`]; ending with fewer than the least is
/// reported as [`ViolationKind::UnusedReplies`], as a queue script's
/// unused replies are: a model call too many or too few costs money or
/// loses an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    least: usize,
    most: usize,
}

impl Expect {
    /// Exactly `n` requests.
    pub fn exactly(n: usize) -> Expect {
        Expect { least: n, most: n }
    }

    /// Between `least` and `most` requests, both included: for a count the
    /// test cannot know (a front end that may ask for a title, or not,
    /// before it quits).
    pub fn between(least: usize, most: usize) -> Expect {
        assert!(least <= most, "Expect::between({least}, {most})");
        Expect { least, most }
    }
}

impl From<usize> for Expect {
    fn from(n: usize) -> Expect {
        Expect::exactly(n)
    }
}

impl From<RangeInclusive<usize>> for Expect {
    fn from(r: RangeInclusive<usize>) -> Expect {
        Expect::between(*r.start(), *r.end())
    }
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
            Answers::Handler { .. } => None,
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
            Answers::Handler {
                handler,
                expected,
                served,
            } => {
                if let Some(reply) = standing() {
                    return (reply, None);
                }
                {
                    let mut served = lock(served);
                    if *served >= expected.most {
                        return (
                            refusal(&format!("script exhausted at request {index}")),
                            Some(violation(
                                ViolationKind::ScriptExhausted,
                                format!(
                                    "a {:?} request after the handler answered the {} it expects",
                                    req.kind, expected.most
                                ),
                            )),
                        );
                    }
                    *served += 1;
                }
                let reply = handler(req, index);
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

    /// What the script holds that no request used, when anything.
    pub fn unused(&self) -> Option<String> {
        match &self.answers {
            Answers::Queue(q) => {
                let kinds: Vec<RequestKind> = lock(q).iter().map(Reply::kind).collect();
                (!kinds.is_empty())
                    .then(|| format!("{} scripted replies never used: {kinds:?}", kinds.len()))
            }
            Answers::Handler {
                expected, served, ..
            } => {
                let served = *lock(served);
                (served < expected.least).then(|| {
                    format!(
                        "the handler expects {} request(s) at least and answered {served}",
                        expected.least
                    )
                })
            }
        }
    }
}
