//! Which conversation a run continues: `--new`, `--resume [ID]`,
//! `--fork ID`, or by default this directory's latest.

use ai_chat_engine::{Conversation, Engine, EngineError, Event, TranscriptItem};
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
    /// Continue a copy of this session under a new id.
    Fork(String),
    /// Continue this directory's latest, or start fresh.
    Auto,
}

impl Start {
    /// From `--new`, `--resume [ID]` and `--fork ID`.
    pub fn from_flags(new: bool, resume: Option<&str>, fork: Option<&str>) -> Start {
        match (new, resume, fork) {
            (_, _, Some(id)) => Start::Fork(id.to_string()),
            (true, _, _) => Start::New,
            (false, Some(""), _) => Start::ResumeLatest,
            (false, Some(id), _) => Start::Resume(id.to_string()),
            (false, None, _) => Start::Auto,
        }
    }
}

/// The chosen conversation.
pub struct Picked {
    /// The conversation.
    pub conv: Conversation,
    /// Whether it continues an earlier one.
    pub resumed: bool,
    /// Things the user should know about the choice.
    pub notes: Vec<String>,
}

impl Picked {
    fn new(conv: Conversation, resumed: bool) -> Picked {
        Picked {
            conv,
            resumed,
            notes: Vec::new(),
        }
    }
}

/// Picks the conversation `start` names. One held elsewhere is refused
/// with its holder named, except by default, where a new one is started.
pub fn pick(engine: &Engine, start: &Start) -> Result<Picked> {
    match start {
        Start::New => Ok(Picked::new(engine.new_conversation(), false)),
        Start::Auto => {
            let Some(latest) = engine.latest_session() else {
                return Ok(Picked::new(engine.new_conversation(), false));
            };
            match engine.load_conversation(&latest.id) {
                Ok(c) => Ok(Picked::new(c, true)),
                Err(EngineError::Locked { session, holder }) => {
                    let mut p = Picked::new(engine.new_conversation(), false);
                    p.notes.push(format!(
                        "note: this directory's latest conversation ({session}) is {holder}; \
                         starting a new one. `k --fork {session}` continues a copy of it, \
                         `k --new` starts fresh without this note."
                    ));
                    Ok(p)
                }
                Err(e) => Err(e.into()),
            }
        }
        Start::ResumeLatest => {
            let latest = engine.latest_session().ok_or_else(|| {
                anyhow!("no saved conversation in this directory; `k sessions` lists them all")
            })?;
            Ok(Picked::new(engine.load_conversation(&latest.id)?, true))
        }
        Start::Resume(id) => {
            if !engine.sessions().iter().any(|s| s.id == *id) {
                bail!("no session {id:?}; `k sessions` lists them");
            }
            Ok(Picked::new(engine.load_conversation(id)?, true))
        }
        Start::Fork(id) => {
            if !engine.sessions().iter().any(|s| s.id == *id) {
                bail!("no session {id:?}; `k sessions` lists them");
            }
            let conv = engine.fork_conversation(id)?;
            let mut p = Picked::new(conv, true);
            p.notes
                .push(format!("note: forked session {id} into {}", p.conv.id()));
            Ok(p)
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
            TranscriptItem::Event(Event::Token { text: t }) => answer.push_str(&t),
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
