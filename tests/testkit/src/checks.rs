//! The invariants every request must keep, checked as it arrives.

use std::collections::HashSet;
use std::fmt;
use std::sync::Mutex;

use crate::wire::{self, Dialect, Item, Part, Role, View};

/// Text the engine's title request carries in its system prompt.
pub const TITLE_MARKER: &str = "title";
/// How the engine's summary request begins its final instruction.
pub const SUMMARY_MARKER: &str = "Context budget reached";
/// Text the engine's memory-curator request carries in its system prompt.
pub const MEMORY_MARKER: &str = "memory curator";

/// Shortest auth value treated as a secret: a shorter one would match
/// ordinary text by chance.
const MIN_SECRET_LEN: usize = 8;

/// Tokens the tests of this process configured (web search keys, MCP
/// headers and environments): no request to any fake provider may carry
/// one, wherever it sits.
static WATCHED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Registers `token`, a value a test configures for koi, as a secret
/// every fake provider of this process watches for: it may appear in no
/// request (its auth header included, for a token that is not the
/// provider's key). Returns it, to write into the configuration.
pub fn secret_token(token: &str) -> String {
    assert!(
        token.len() >= MIN_SECRET_LEN,
        "a secret token of {} bytes would match ordinary text",
        token.len()
    );
    let mut watched = WATCHED.lock().unwrap_or_else(|p| p.into_inner());
    if !watched.iter().any(|w| w == token) {
        watched.push(token.to_string());
    }
    token.to_string()
}

/// What a request asks the model for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// A round of a conversation's turn.
    Turn,
    /// A conversation title (a tiny request without tools).
    Title,
    /// A summary of older history (compaction).
    Summary,
    /// The memory curator reading a finished conversation (no tools).
    Memory,
    /// `GET …/models`: a client looking for a server and its models.
    ModelList,
}

impl RequestKind {
    /// Side requests are extra work a test must expect.
    pub fn is_side(self) -> bool {
        self != RequestKind::Turn
    }

    pub(crate) fn of(view: &View) -> RequestKind {
        let last_user = view
            .items
            .iter()
            .rev()
            .find_map(|i| match (&i.role, &i.part) {
                (Role::User, Part::Text(t)) => Some(t.as_str()),
                _ => None,
            });
        let no_tools = view.tools_raw.is_empty();
        if no_tools && view.system_text.contains(MEMORY_MARKER) {
            RequestKind::Memory
        } else if last_user.is_some_and(|t| t.contains(SUMMARY_MARKER)) {
            RequestKind::Summary
        } else if view.tools_raw.is_empty()
            && view.system_text.to_ascii_lowercase().contains(TITLE_MARKER)
        {
            RequestKind::Title
        } else {
            RequestKind::Turn
        }
    }
}

/// Which invariant a request broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    /// Not `POST`.
    WrongMethod,
    /// Not the dialect's endpoint.
    WrongPath,
    /// The body does not parse as a request of the dialect.
    BadBody,
    /// The body parses but lacks what the dialect requires.
    BadShape,
    /// A header the dialect requires is missing or wrong.
    BadHeader,
    /// A tool result answers no call made earlier (or answers one twice).
    OrphanResult,
    /// A call is not answered before the next message.
    UnansweredCall,
    /// Anthropic's roles: user first, alternating, user last.
    RoleOrder,
    /// A key appears outside the auth header.
    SecretLeak,
    /// The system prompt differs from the previous request of the conversation.
    SystemChanged,
    /// `tools` differs from the previous request of the conversation.
    ToolsChanged,
    /// Earlier history differs from the conversation's previous request
    /// where no compaction is recorded.
    HistoryRewritten,
    /// The body breaks the provider's own published definition of a
    /// request (tests/testkit/schemas): the provider, not `wire.rs`, wins.
    ProviderSchema,
    /// A title or summary request the test did not script a reply for.
    UnexpectedSideRequest,
    /// A request arrived after the script ran out.
    ScriptExhausted,
    /// Scripted replies were never used.
    UnusedReplies,
}

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The 0-based index of the request, when one broke it.
    pub request: Option<usize>,
    pub kind: ViolationKind,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.request {
            Some(i) => write!(f, "request {i}: {:?}: {}", self.kind, self.detail),
            None => write!(f, "{:?}: {}", self.kind, self.detail),
        }
    }
}

/// What the checker needs to know about a request.
pub(crate) struct Incoming<'a> {
    pub index: usize,
    pub method: &'a str,
    pub path: &'a str,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

/// Checker state carried from request to request.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    /// The dialect declared, or learnt from the first request.
    pub dialect: Option<Dialect>,
    /// Keys that may appear only in the auth header.
    pub secrets: Vec<String>,
    /// Earlier turn requests, for the same-conversation checks.
    pub turns: Vec<View>,
}

impl Checker {
    /// Checks one request; returns its kind (a turn when unreadable) and
    /// what it broke.
    pub fn check(&mut self, req: &Incoming<'_>) -> (RequestKind, Vec<Violation>) {
        let mut out = Vec::new();
        let mut flag = |kind, detail: String| {
            out.push(Violation {
                request: Some(req.index),
                kind,
                detail,
            })
        };
        if req.method == "GET"
            && req
                .path
                .split('?')
                .next()
                .is_some_and(|p| p.ends_with("/models"))
        {
            let dialect = self.dialect.unwrap_or(Dialect::OpenAiChat);
            self.check_secrets(dialect, req, &mut flag);
            return (RequestKind::ModelList, out);
        }
        if req.method != "POST" {
            flag(
                ViolationKind::WrongMethod,
                format!("{} {}, not POST", req.method, req.path),
            );
        }
        let dialect = match (self.dialect, Dialect::from_path(req.path)) {
            (Some(d), got) => {
                if got != Some(d) {
                    flag(
                        ViolationKind::WrongPath,
                        format!("{} is not {d:?}'s {}", req.path, d.path_suffix()),
                    );
                }
                d
            }
            (None, Some(d)) => {
                self.dialect = Some(d);
                d
            }
            (None, None) => {
                flag(
                    ViolationKind::WrongPath,
                    format!("{} is no dialect's endpoint", req.path),
                );
                return (RequestKind::Turn, out);
            }
        };
        self.check_secrets(dialect, req, &mut flag);
        check_headers(dialect, req.headers, &mut flag);
        let view = match wire::read(dialect, req.body) {
            Ok(v) => v,
            Err(e) => {
                flag(ViolationKind::BadBody, e);
                return (RequestKind::Turn, out);
            }
        };
        for e in &view.shape_errors {
            flag(ViolationKind::BadShape, e.clone());
        }
        if let Ok(json) = serde_json::from_slice(req.body) {
            for e in crate::provider_schema::check(dialect, &json) {
                flag(ViolationKind::ProviderSchema, e);
            }
        }
        check_pairing(&view, &mut flag);
        if dialect == Dialect::Anthropic {
            check_anthropic_roles(&view, &mut flag);
        }
        let kind = RequestKind::of(&view);
        if !matches!(kind, RequestKind::Title | RequestKind::Memory) {
            self.check_history(&view, &mut flag);
        }
        if kind == RequestKind::Turn {
            self.turns.push(view);
        }
        (kind, out)
    }

    fn check_secrets(
        &mut self,
        dialect: Dialect,
        req: &Incoming<'_>,
        flag: &mut impl FnMut(ViolationKind, String),
    ) {
        let (auth_name, prefix) = dialect.auth_header();
        let presented = req
            .headers
            .iter()
            .find(|(k, _)| k == auth_name)
            .and_then(|(_, v)| v.strip_prefix(prefix))
            .filter(|v| v.len() >= MIN_SECRET_LEN);
        if let Some(key) = presented {
            if !self.secrets.iter().any(|s| s == key) {
                self.secrets.push(key.to_string());
            }
        }
        let body = String::from_utf8_lossy(req.body);
        let watched = WATCHED.lock().unwrap_or_else(|p| p.into_inner()).clone();
        // Elsewhere the loop below looks; a configured token is no key.
        for (name, value) in req.headers.iter().filter(|(n, _)| n == auth_name) {
            if watched.iter().any(|w| value.contains(w.as_str())) {
                flag(
                    ViolationKind::SecretLeak,
                    format!("a configured token in the {name} header"),
                );
            }
        }
        for secret in self.secrets.iter().chain(&watched) {
            if req.path.contains(secret.as_str()) {
                flag(ViolationKind::SecretLeak, "a key in the path".into());
            }
            if body.contains(secret.as_str()) {
                flag(ViolationKind::SecretLeak, "a key in the body".into());
            }
            for (name, value) in req.headers {
                if name != auth_name && value.contains(secret.as_str()) {
                    flag(
                        ViolationKind::SecretLeak,
                        format!("a key in the {name} header"),
                    );
                }
            }
        }
    }

    /// History is append-only on every request: this one continues the
    /// earlier turn it shares the longest prefix with, or starts a
    /// conversation of its own (nothing shared, a restart of the same
    /// beginning, or a branch: a shared prefix, then one new user message
    /// or the last step's results answered another way).
    /// Any other rewrite must show a compaction the engine recorded. In
    /// the same conversation the system prompt and tools never move,
    /// compaction or not.
    fn check_history(&self, view: &View, flag: &mut impl FnMut(ViolationKind, String)) {
        // The most shared; of those, one it continues; of those, the latest.
        let mut best: Option<(&View, usize, bool)> = None;
        for earlier in &self.turns {
            let shared = shared_prefix(&earlier.items, &view.items);
            let continues = shared == earlier.items.len();
            if shared > 0 && best.is_none_or(|(_, most, c)| (shared, continues) >= (most, c)) {
                best = Some((earlier, shared, continues));
            }
        }
        let Some((previous, shared, continues)) = best else {
            return;
        };
        if !continues {
            // A restart: this request is a beginning of the earlier one.
            if shared == view.items.len() {
                return;
            }
            let is_user_text = |i: &Item| i.role == Role::User && matches!(i.part, Part::Text(_));
            let (here, there) = (&view.items[shared], &previous.items[shared]);
            // A branch: a new user message, or the results of a step
            // answered its own way (a fork answers a call the other copy
            // ran "not run here").
            let asks_anew =
                shared + 1 == view.items.len() && is_user_text(here) && is_user_text(there);
            let answers_anew = matches!((&here.part, &there.part), (Part::Result(a), Part::Result(b)) if a == b)
                && view.items[shared..]
                    .iter()
                    .all(|i| matches!(i.part, Part::Result(_)));
            if asks_anew || answers_anew {
                return;
            }
            let recorded = view.items[shared..].iter().any(|i| {
                REWRITE_MARKS
                    .iter()
                    .any(|m| i.canon.to_string().contains(m))
            });
            if !recorded {
                flag(
                    ViolationKind::HistoryRewritten,
                    format!(
                        "item {shared} of the history differs from the earlier request it \
                         continues, and no compaction is recorded there: {} became {}",
                        brief(&previous.items[shared].canon),
                        brief(&view.items[shared].canon)
                    ),
                );
            }
        }
        // Same items are not enough for a provider's prompt cache: the
        // bytes must continue too (key order, escaping, spacing).
        let sent_before = previous.history_raw.trim_end_matches([']', '}']);
        if continues && !view.history_raw.starts_with(sent_before) {
            let at = sent_before
                .bytes()
                .zip(view.history_raw.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            flag(
                ViolationKind::HistoryRewritten,
                format!(
                    "the same history in other bytes, from byte {at} of it: {:?} became {:?}",
                    snippet(sent_before, at),
                    snippet(&view.history_raw, at)
                ),
            );
        }
        if previous.system_raw != view.system_raw {
            flag(
                ViolationKind::SystemChanged,
                "the system prompt differs from the conversation's previous request".into(),
            );
        }
        if previous.tools_raw != view.tools_raw {
            flag(
                ViolationKind::ToolsChanged,
                "tools[] differs from the conversation's previous request".into(),
            );
        }
    }
}

/// How a rewrite the engine recorded in its session log shows in the
/// history it sends: a summary in place of older messages, a drop
/// marker, a trimmed tool result (ai_chat_engine's `compaction`), or an
/// image left out once the provider refused it (its `Media` entry).
const REWRITE_MARKS: [&str; 4] = [
    "[Summary of the earlier part of this conversation",
    "were DROPPED from your context",
    "[koi trimmed this old tool result",
    "left out: the provider rejected the request with it]",
];

/// How many leading items two histories share.
fn shared_prefix(a: &[Item], b: &[Item]) -> usize {
    a.iter()
        .zip(b)
        .take_while(|(x, y)| x.canon == y.canon)
        .count()
}

/// Up to 60 bytes of `text` from `at` (on char boundaries).
fn snippet(text: &str, at: usize) -> String {
    text.char_indices()
        .skip_while(|(i, _)| *i < at)
        .take(60)
        .map(|(_, c)| c)
        .collect()
}

/// Longest piece of an item shown in a violation.
const BRIEF_CHARS: usize = 120;

fn brief(v: &serde_json::Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(BRIEF_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// A JSON body says so, and Anthropic wants its API version named.
fn check_headers(
    dialect: Dialect,
    headers: &[(String, String)],
    flag: &mut impl FnMut(ViolationKind, String),
) {
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if !get("content-type").is_some_and(|v| v.starts_with("application/json")) {
        flag(
            ViolationKind::BadHeader,
            format!(
                "content-type is {:?}, not application/json",
                get("content-type")
            ),
        );
    }
    if dialect == Dialect::Anthropic && get("anthropic-version").is_none() {
        flag(
            ViolationKind::BadHeader,
            "no anthropic-version header".into(),
        );
    }
}

/// Every result answers an earlier call of the step just before it, and
/// every call is answered before anything else is said.
fn check_pairing(view: &View, flag: &mut impl FnMut(ViolationKind, String)) {
    let mut pending: Vec<&str> = Vec::new();
    let mut pending_step = None;
    let mut answered: HashSet<&str> = HashSet::new();
    for (n, item) in view.items.iter().enumerate() {
        match &item.part {
            Part::Call(id) => {
                if !pending.is_empty() && pending_step != Some(item.step) {
                    flag(
                        ViolationKind::UnansweredCall,
                        format!("call(s) {pending:?} unanswered before item {n}"),
                    );
                    pending.clear();
                }
                pending.push(id);
                pending_step = Some(item.step);
            }
            Part::Result(id) => {
                if let Some(at) = pending.iter().position(|p| p == id) {
                    pending.remove(at);
                    answered.insert(id);
                } else if answered.contains(id.as_str()) {
                    flag(
                        ViolationKind::OrphanResult,
                        format!("call {id:?} answered twice (item {n})"),
                    );
                } else {
                    flag(
                        ViolationKind::OrphanResult,
                        format!("result for {id:?} at item {n} answers no earlier call"),
                    );
                }
            }
            Part::Text(_) => {
                if !pending.is_empty() {
                    flag(
                        ViolationKind::UnansweredCall,
                        format!("call(s) {pending:?} unanswered before item {n}"),
                    );
                    pending.clear();
                }
            }
        }
    }
    if !pending.is_empty() {
        flag(
            ViolationKind::UnansweredCall,
            format!("call(s) {pending:?} unanswered at the end of the request"),
        );
    }
}

fn check_anthropic_roles(view: &View, flag: &mut impl FnMut(ViolationKind, String)) {
    let roles = &view.message_roles;
    if roles.first().map(String::as_str) != Some("user") {
        flag(
            ViolationKind::RoleOrder,
            "the first message is not the user's".into(),
        );
    }
    if roles.last().map(String::as_str) != Some("user") && !view.ends_paused {
        flag(
            ViolationKind::RoleOrder,
            "the last message is not the user's".into(),
        );
    }
    for (n, pair) in roles.windows(2).enumerate() {
        if pair[0] == pair[1] {
            flag(
                ViolationKind::RoleOrder,
                format!("messages {n} and {} are both {}", n + 1, pair[0]),
            );
        }
    }
    for (n, r) in roles.iter().enumerate() {
        if r != "user" && r != "assistant" {
            flag(
                ViolationKind::RoleOrder,
                format!("message {n} has the role {r:?}"),
            );
        }
    }
}
