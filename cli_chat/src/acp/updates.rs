//! From koi's turn events to ACP `session/update`s: one translation for a
//! live turn and for a replayed conversation, so the two look alike.

use std::collections::HashMap;
use std::path::PathBuf;

use ai_chat_engine::protocol::GoalStatus;
use ai_chat_engine::{Conversation, Event, Message, TranscriptItem};
use serde_json::Value;

use super::tools;
use super::wire::{
    Content, Location, PlanEntry, SessionUpdate, ToolCallFields, ToolContent, ToolKind, ToolStatus,
};

/// A goal as its plan shows it: the objective, the check command, and
/// where it stands.
#[derive(Debug, Clone)]
struct PlanGoal {
    objective: String,
    check: String,
    status: GoalStatus,
}

/// What is known of one call.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    kind: ToolKind,
    path: Option<PathBuf>,
    args: Option<Value>,
    /// The file's text when the call started (edits of a live turn).
    before: Option<Option<String>>,
}

/// Turns a conversation's events into updates, remembering each call.
pub struct Translator {
    conv: Conversation,
    workspace: PathBuf,
    /// Whether the files are read now (a live turn: through the client's
    /// editor when it has one, else the disk) or not (`None`, a replay:
    /// today's file says nothing about an old edit).
    live: Option<ai_tools::Editor>,
    /// The conversation's history, read when a call's arguments or output
    /// are needed and not yet seen.
    history: Vec<Message>,
    calls: HashMap<String, Call>,
    /// Tokens in context after the latest round.
    pub context_tokens: u64,
    /// The goal's last state and whether its check last passed (goal
    /// mode), for the plan.
    goal: Option<(PlanGoal, Option<bool>)>,
}

impl Translator {
    /// A translator for `conv`, whose tools work in `workspace`.
    pub fn new(
        conv: Conversation,
        workspace: PathBuf,
        live: Option<ai_tools::Editor>,
    ) -> Translator {
        Translator {
            conv,
            workspace,
            live,
            history: Vec::new(),
            calls: HashMap::new(),
            context_tokens: 0,
            goal: None,
        }
    }

    /// The updates for one message of a turn (none for the ones a client
    /// does not show, and for the gate and the end, which the turn
    /// handles).
    pub fn updates(&mut self, msg: &Event) -> Vec<SessionUpdate> {
        match msg {
            Event::Token { text: t } if !t.is_empty() => vec![SessionUpdate::AgentMessageChunk {
                content: Content::text(t.clone()),
            }],
            Event::Reasoning { text: t } if !t.is_empty() => {
                vec![SessionUpdate::AgentThoughtChunk {
                    content: Content::text(t.clone()),
                }]
            }
            Event::ToolStart {
                id, name, summary, ..
            } => vec![SessionUpdate::ToolCall(self.start(id, name, summary))],
            Event::ToolProgress { id, text } => {
                vec![SessionUpdate::ToolCallUpdate(ToolCallFields {
                    tool_call_id: id.clone(),
                    status: Some(ToolStatus::InProgress),
                    content: Some(vec![text_content(text)]),
                    ..ToolCallFields::default()
                })]
            }
            Event::ToolDone { id, preview } => {
                vec![SessionUpdate::ToolCallUpdate(self.done(id, preview))]
            }
            Event::ToolFailed { id, error } => {
                vec![SessionUpdate::ToolCallUpdate(ToolCallFields {
                    tool_call_id: id.clone(),
                    status: Some(ToolStatus::Failed),
                    content: Some(vec![text_content(error)]),
                    ..ToolCallFields::default()
                })]
            }
            Event::Usage { input, output, .. } => {
                self.context_tokens = input.saturating_add(*output);
                Vec::new()
            }
            Event::Goal {
                status,
                objective,
                check,
                ..
            } => self
                .plan(*status, objective.as_deref(), check.as_deref())
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Goal mode as a plan of two entries: the objective, and the check
    /// that proves it done.
    fn plan(
        &mut self,
        status: GoalStatus,
        objective: Option<&str>,
        check: Option<&str>,
    ) -> Option<SessionUpdate> {
        match (status, objective, check) {
            (GoalStatus::CheckPassed | GoalStatus::CheckFailed, ..) => {
                if let Some((_, passed)) = self.goal.as_mut() {
                    *passed = Some(status == GoalStatus::CheckPassed);
                }
            }
            (_, Some(objective), Some(check)) => {
                let passed = self.goal.as_ref().and_then(|(_, p)| *p);
                let goal = PlanGoal {
                    objective: objective.to_string(),
                    check: check.to_string(),
                    status,
                };
                self.goal = Some((goal, passed));
            }
            _ => {}
        }
        let (goal, passed) = self.goal.as_ref()?;
        let objective = match goal.status {
            GoalStatus::Complete => "completed",
            GoalStatus::Active => "in_progress",
            _ => "pending",
        };
        let check = match passed {
            Some(true) => "completed",
            _ => "pending",
        };
        Some(SessionUpdate::Plan {
            entries: vec![
                PlanEntry {
                    content: goal.objective.clone(),
                    priority: "high",
                    status: objective,
                },
                PlanEntry {
                    content: format!("`{}` passes", goal.check),
                    priority: "high",
                    status: check,
                },
            ],
        })
    }

    /// A call approved by the user is running.
    pub fn running(&self, id: &str) -> SessionUpdate {
        SessionUpdate::ToolCallUpdate(ToolCallFields {
            tool_call_id: id.to_string(),
            status: Some(ToolStatus::InProgress),
            ..ToolCallFields::default()
        })
    }

    /// The call as a permission request shows it: what would change (for
    /// edits, the diff), and why koi asks.
    pub fn asking(&self, id: &str, summary: &str, detail: &str) -> ToolCallFields {
        let call = self.calls.get(id);
        let mut content = Vec::new();
        if let Some(diff) = call.and_then(|c| self.proposed_diff(c)) {
            content.push(diff);
        }
        if !detail.trim().is_empty() {
            content.push(text_content(detail));
        }
        ToolCallFields {
            tool_call_id: id.to_string(),
            title: Some(tools::title(
                call.map_or("tool", |c| c.name.as_str()),
                summary,
            )),
            kind: call.map(|c| c.kind),
            status: Some(ToolStatus::Pending),
            content: Some(content),
            locations: call.and_then(locations),
        }
    }

    /// The tool name of call `id`, when it was seen.
    pub fn name_of(&self, id: &str) -> Option<&str> {
        self.calls.get(id).map(|c| c.name.as_str())
    }

    fn start(&mut self, id: &str, name: &str, summary: &str) -> ToolCallFields {
        let args = self.call_args(id);
        let path = args
            .as_ref()
            .and_then(|a| tools::path_of(a, &self.workspace));
        let kind = tools::kind_of(name);
        let before = (self.live.is_some() && matches!(kind, ToolKind::Edit | ToolKind::Delete))
            .then(|| path.as_deref().and_then(|p| self.read_text(p)));
        let call = Call {
            name: name.to_string(),
            kind,
            path,
            args,
            before,
        };
        let fields = ToolCallFields {
            tool_call_id: id.to_string(),
            title: Some(tools::title(name, summary)),
            kind: Some(kind),
            status: Some(ToolStatus::Pending),
            content: None,
            locations: locations(&call),
        };
        self.calls.insert(id.to_string(), call);
        fields
    }

    fn done(&mut self, id: &str, preview: &str) -> ToolCallFields {
        let call = self.calls.get(id).cloned();
        let kind = call.as_ref().map(|c| c.kind);
        let mut content = Vec::new();
        match (&call, kind) {
            // An edit of a live turn: the file before and after.
            (Some(c), Some(ToolKind::Edit)) if self.live.is_some() => {
                if let Some(path) = &c.path {
                    if let Some(new_text) = self.read_text(path) {
                        content.push(ToolContent::Diff {
                            path: path.clone(),
                            old_text: c.before.clone().flatten(),
                            new_text,
                        });
                    }
                }
            }
            // A command: what it printed, as the model got it.
            (Some(_), Some(ToolKind::Execute)) => {
                if let Some(out) = self.call_output(id) {
                    content.push(text_content(&out));
                }
            }
            _ => {}
        }
        if content.is_empty() && !preview.is_empty() {
            content.push(text_content(preview));
        }
        ToolCallFields {
            tool_call_id: id.to_string(),
            status: Some(ToolStatus::Completed),
            content: Some(content),
            ..ToolCallFields::default()
        }
    }

    fn proposed_diff(&self, call: &Call) -> Option<ToolContent> {
        let path = call.path.clone()?;
        let before = match &call.before {
            Some(b) => b.clone(),
            None => self.read_text(&path),
        };
        let new_text = tools::proposed_text(&call.name, call.args.as_ref()?, before.as_deref())?;
        Some(ToolContent::Diff {
            path,
            old_text: before,
            new_text,
        })
    }

    /// A file's text now, as the tools see it: the client's buffer when it
    /// has one, else the disk.
    fn read_text(&self, path: &std::path::Path) -> Option<String> {
        let editor = self.live.as_ref().and_then(Option::as_ref);
        editor
            .and_then(|e| e.read(path))
            .or_else(|| tools::read_text(path))
    }

    /// The full arguments of call `id`, from the committed history.
    fn call_args(&mut self, id: &str) -> Option<Value> {
        let find = |history: &[Message]| {
            history.iter().rev().find_map(|m| match m {
                Message::Assistant { tool_calls, .. } => tool_calls
                    .iter()
                    .find(|c| c.id == id)
                    .map(|c| c.arguments.clone()),
                _ => None,
            })
        };
        let text = match find(&self.history) {
            Some(t) => t,
            None => {
                self.history = self.conv.messages();
                find(&self.history)?
            }
        };
        serde_json::from_str(&text).ok()
    }

    /// What the model was given as call `id`'s result.
    fn call_output(&mut self, id: &str) -> Option<String> {
        let find = |history: &[Message]| {
            history.iter().rev().find_map(|m| match m {
                Message::ToolResult {
                    call_id, content, ..
                } if call_id == id => Some(content.clone()),
                _ => None,
            })
        };
        match find(&self.history) {
            Some(t) => Some(t),
            None => {
                self.history = self.conv.messages();
                find(&self.history)
            }
        }
    }

    /// The updates that replay the saved conversation.
    pub fn replay(&mut self) -> Vec<SessionUpdate> {
        self.history = self.conv.messages();
        let items = self.conv.transcript();
        let mut out = Vec::new();
        for item in items {
            match item {
                TranscriptItem::Asked { text, .. } => out.push(SessionUpdate::UserMessageChunk {
                    content: Content::text(text),
                }),
                TranscriptItem::Event(msg) => out.extend(self.updates(&msg)),
                TranscriptItem::Summarised => out.push(SessionUpdate::AgentMessageChunk {
                    content: Content::text("[earlier history was summarised]\n"),
                }),
            }
        }
        out
    }
}

fn text_content(text: &str) -> ToolContent {
    ToolContent::Content {
        content: Content::text(text),
    }
}

fn locations(call: &Call) -> Option<Vec<Location>> {
    call.path
        .as_ref()
        .map(|p| vec![Location { path: p.clone() }])
}
