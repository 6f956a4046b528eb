//! Which conversation a run continues: `--new`, `--resume [ID]`, or by
//! default this directory's latest.

use ai_chat_engine::{Conversation, Engine, StreamMsg, TranscriptItem};
use anyhow::{anyhow, bail, Result};

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// A fresh conversation.
    New,
    /// Continue this directory's latest; an error when there is none.
    ResumeLatest,
    /// Continue this session.
    Resume(String),
    /// Continue this directory's latest, or start fresh.
    Auto,
}

impl Start {
    /// From `--new` and `--resume [ID]`.
    pub fn from_flags(new: bool, resume: Option<&str>) -> Start {
        match (new, resume) {
            (true, _) => Start::New,
            (false, Some("")) => Start::ResumeLatest,
            (false, Some(id)) => Start::Resume(id.to_string()),
            (false, None) => Start::Auto,
        }
    }
}

/// The chosen conversation and whether it continues an earlier one.
pub fn pick(engine: &Engine, start: &Start) -> Result<(Conversation, bool)> {
    match start {
        Start::New => Ok((engine.new_conversation(), false)),
        Start::Auto => Ok(match engine.latest_conversation() {
            Some(c) => (c, true),
            None => (engine.new_conversation(), false),
        }),
        Start::ResumeLatest => engine
            .latest_conversation()
            .map(|c| (c, true))
            .ok_or_else(|| {
                anyhow!("no saved conversation in this directory; `k sessions` lists them all")
            }),
        Start::Resume(id) => {
            if !engine.sessions().iter().any(|s| s.id == *id) {
                bail!("no session {id:?}; `k sessions` lists them");
            }
            Ok((engine.load_conversation(id)?, true))
        }
    }
}

/// Lines of the last answer shown when a conversation is continued.
const RECAP_LINES: usize = 3;
/// Characters per recap line: one terminal row's worth.
const RECAP_WIDTH: usize = 100;

/// Where a continued conversation left off: its last question and the
/// start of the answer, a few short lines for the user to get their
/// bearings.
pub fn recap(conv: &Conversation) -> Vec<String> {
    let mut question = None;
    let mut answer = String::new();
    for item in conv.transcript() {
        match item {
            TranscriptItem::Asked { text, .. } => {
                question = Some(text);
                answer.clear();
            }
            TranscriptItem::Event(StreamMsg::Token(t)) => answer.push_str(&t),
            _ => {}
        }
    }
    let Some(question) = question else {
        return Vec::new();
    };
    let short = |s: &str| -> String {
        let s = s.trim();
        if s.chars().count() <= RECAP_WIDTH {
            s.to_string()
        } else {
            let cut: String = s.chars().take(RECAP_WIDTH - 1).collect();
            format!("{cut}…")
        }
    };
    let mut out = vec![format!(
        "you: {}",
        short(question.lines().next().unwrap_or(""))
    )];
    out.extend(
        answer
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(RECAP_LINES)
            .map(|l| format!("  {}", short(l))),
    );
    out
}

/// One-line notes worth telling the user about a continued conversation.
pub fn notes(conv: &Conversation) -> Vec<String> {
    match std::env::current_dir() {
        Ok(here) => conv.resume_notes(&here),
        Err(_) => Vec::new(),
    }
}
