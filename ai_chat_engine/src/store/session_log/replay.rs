//! The model's history, rebuilt from the log (a projection of it).

use super::{ConversationContext, Entry, ForkOrigin, Record};
use crate::image::MediaLevel;
use crate::message::{Message, ToolCall};

/// A conversation rebuilt from its log.
#[derive(Debug, Default)]
pub struct Replayed {
    /// The history the model sees. Calls of the last round that have no
    /// result yet have none here either: what becomes of them is the
    /// recovery planner's decision ([`crate::store::recovery`]).
    pub messages: Vec<Message>,
    /// The latest title.
    pub title: Option<String>,
    /// Session id, cwd, provider, model from the meta line.
    pub meta: Option<Entry>,
    /// The latest context.
    pub context: ConversationContext,
    /// Where a fork came from.
    pub forked_from: Option<ForkOrigin>,
    /// The goal, as the log last left it.
    pub goal: Option<crate::goal::Goal>,
    /// How much media requests carry (the latest `media` line).
    pub media: MediaLevel,
}

/// What the model was told, in a format-1 log, about a call that started
/// but never finished before the conversation went on.
pub const UNCERTAIN_RESULT: &str =
    "uncertain: koi stopped while this call was running, so whether \
it took effect is unknown. Check the current state before repeating it.";

/// What the model is told about a call that never started before the
/// conversation went on (format-1 logs only).
pub const NOT_RUN_RESULT: &str = "not run: koi stopped before this call started.";

/// Rebuilds the model's history.
pub fn replay(records: &[Record]) -> Replayed {
    let mut out = Replayed::default();
    let mut open = OpenRound::default();
    for r in records {
        match &r.entry {
            Entry::Meta { forked_from, .. } => {
                out.forked_from = forked_from.clone();
                out.meta = Some(r.entry.clone());
            }
            Entry::Context(c) => out.context = c.clone(),
            Entry::Environment { text } => out.messages.push(Message::Environment(text.clone())),
            Entry::User {
                text,
                attachments,
                images,
            } => {
                open.close(&mut out.messages);
                out.messages.push(Message::User {
                    text: text.clone(),
                    attachments: attachments.clone(),
                    images: images.clone(),
                });
            }
            Entry::Assistant {
                text,
                tool_calls,
                reasoning_blocks,
                ..
            } => {
                open.close(&mut out.messages);
                out.messages.push(Message::Assistant {
                    text: text.clone(),
                    tool_calls: crate::model::providers::history_calls(tool_calls),
                    reasoning_blocks: reasoning_blocks.clone(),
                });
                open.pending = tool_calls.clone();
            }
            Entry::ToolStart { call_id, .. } => open.started.push(call_id.clone()),
            Entry::ToolResult {
                call_id,
                name,
                is_error,
                for_model,
                ..
            } => {
                open.pending.retain(|c| &c.id != call_id);
                out.messages.push(Message::ToolResult {
                    call_id: call_id.clone(),
                    name: name.clone(),
                    content: for_model.clone(),
                    is_error: *is_error,
                });
            }
            Entry::Notice { text } => {
                open.close(&mut out.messages);
                out.messages.push(Message::Notice(text.clone()));
            }
            Entry::Summary {
                text, keep_from, ..
            } => {
                open.close(&mut out.messages);
                out.messages = crate::compaction::apply_summary(&out.messages, text, *keep_from);
            }
            Entry::Trimmed { call_ids, .. } => {
                crate::compaction::apply_trim(&mut out.messages, call_ids);
            }
            Entry::TurnEnd { .. } => open.close(&mut out.messages),
            Entry::Title { text } => out.title = Some(text.clone()),
            Entry::Goal(g) => out.goal = crate::goal::fold(out.goal.take(), g),
            Entry::Media { level } => out.media = *level,
            Entry::Usage { .. }
            | Entry::Draft { .. }
            | Entry::DraftDiscarded
            | Entry::ApprovalAsked { .. }
            | Entry::ApprovalDecided { .. }
            | Entry::UncertainDecided { .. }
            | Entry::CodeCallResult { .. }
            | Entry::CompactionFailed { .. } => {}
        }
    }
    out
}

/// The calls of the latest round still waiting for a result.
#[derive(Default)]
struct OpenRound {
    pending: Vec<ToolCall>,
    started: Vec<String>,
}

impl OpenRound {
    /// The conversation went on past this round (only a format-1 log
    /// does that): its calls without results get synthetic ones, so the
    /// history stays a valid request.
    fn close(&mut self, messages: &mut Vec<Message>) {
        for call in self.pending.drain(..) {
            let content = if self.started.contains(&call.id) {
                UNCERTAIN_RESULT
            } else {
                NOT_RUN_RESULT
            };
            messages.push(Message::ToolResult {
                call_id: call.id,
                name: call.name,
                content: content.to_string(),
                is_error: true,
            });
        }
        self.started.clear();
    }
}
