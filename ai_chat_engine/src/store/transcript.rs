//! A saved conversation as a front end shows it: each question, and the
//! events a live turn would have streamed for its answer. Replaying a
//! resumed conversation through the same code that draws live turns keeps
//! the two looking alike.

use crate::message::Message;
use crate::stream::preview::{call_summary, preview};
use crate::stream::Event;

/// One step of a transcript.
#[derive(Debug)]
pub enum TranscriptItem {
    /// What the user asked, with the labels of what was attached.
    Asked {
        /// The question.
        text: String,
        /// Attachment labels (`screen`, `stdin`, …).
        attachments: Vec<String>,
    },
    /// What a live turn streamed: `AssistantStart`, `Token`, `ToolStart`,
    /// `ToolDone`/`ToolFailed`, and a `Done` closing each answer.
    Event(Event),
    /// Older history stands summarised (it was compacted to fit the context).
    Summarised,
}

/// The transcript of `messages` (a conversation's history). Tool results
/// show the first line of what the model was given; the live one-line
/// previews are not kept in history.
pub fn transcript(messages: &[Message]) -> Vec<TranscriptItem> {
    let mut out = Vec::new();
    let mut answering = false;
    for message in messages {
        match message {
            Message::Environment(_) | Message::Notice(_) => {}
            Message::Summary(_) => out.push(TranscriptItem::Summarised),
            Message::User {
                text, attachments, ..
            } => {
                if std::mem::take(&mut answering) {
                    out.push(TranscriptItem::Event(Event::Done));
                }
                out.push(TranscriptItem::Asked {
                    text: text.clone(),
                    attachments: attachments.iter().map(|a| a.label.clone()).collect(),
                });
            }
            // Opaque reasoning blocks are the provider's, never the user's view.
            Message::Assistant {
                text, tool_calls, ..
            } => {
                answering = true;
                out.push(TranscriptItem::Event(Event::AssistantStart));
                if !text.is_empty() {
                    out.push(TranscriptItem::Event(Event::Token { text: text.clone() }));
                }
                out.extend(tool_calls.iter().map(|call| {
                    TranscriptItem::Event(Event::ToolStart {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        args_preview: preview(&call.arguments),
                        summary: call_summary(&call.arguments),
                    })
                }));
            }
            Message::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => {
                let first = preview(content.lines().next().unwrap_or_default());
                out.push(TranscriptItem::Event(if *is_error {
                    Event::ToolFailed {
                        id: call_id.clone(),
                        error: first,
                    }
                } else {
                    Event::ToolDone {
                        id: call_id.clone(),
                        preview: first,
                    }
                }));
            }
        }
    }
    if answering {
        out.push(TranscriptItem::Event(Event::Done));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Attachment, AttachmentKind, ReasoningBlock, ToolCall};

    fn shape(items: &[TranscriptItem]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                TranscriptItem::Asked { text, attachments } => {
                    format!("asked {text} {attachments:?}")
                }
                TranscriptItem::Summarised => "summarised".into(),
                TranscriptItem::Event(Event::AssistantStart) => "start".into(),
                TranscriptItem::Event(Event::Token { text: t }) => format!("token {t}"),
                TranscriptItem::Event(Event::ToolStart {
                    id,
                    name,
                    args_preview,
                    ..
                }) => format!("tool {id} {name} {args_preview}"),
                TranscriptItem::Event(Event::ToolDone {
                    id,
                    preview: result_preview,
                }) => {
                    format!("done {id} {result_preview}")
                }
                TranscriptItem::Event(Event::ToolFailed { id, error }) => {
                    format!("failed {id} {error}")
                }
                TranscriptItem::Event(Event::Done) => "end".into(),
                TranscriptItem::Event(other) => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn questions_answers_and_tools_in_order() {
        let messages = vec![
            Message::Environment("<environment>…".into()),
            Message::User {
                text: "why?".into(),
                attachments: vec![Attachment {
                    kind: AttachmentKind::Terminal,
                    label: "screen".into(),
                    content: "$ make\nerror".into(),
                }],
                images: vec![],
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![
                    ToolCall {
                        id: "c1".into(),
                        name: "fs_read".into(),
                        arguments: "{\"path\":\"Makefile\"}".into(),
                    },
                    ToolCall {
                        id: "c2".into(),
                        name: "shell_exec".into(),
                        arguments: "{\"command\":\"rm -rf x\"}".into(),
                    },
                ],
                reasoning_blocks: vec![ReasoningBlock::Thinking {
                    thinking: "secret plan".into(),
                    signature: "sig".into(),
                }],
            },
            Message::ToolResult {
                call_id: "c1".into(),
                name: "fs_read".into(),
                content: "Makefile, lines 1-3 of 3\nall:\n".into(),
                is_error: false,
            },
            Message::ToolResult {
                call_id: "c2".into(),
                name: "shell_exec".into(),
                content: "the user denied this".into(),
                is_error: true,
            },
            Message::Notice("wrap up".into()),
            Message::Assistant {
                text: "A tab is missing.".into(),
                tool_calls: vec![],
                reasoning_blocks: vec![],
            },
            Message::Summary("older".into()),
            Message::User {
                text: "thanks".into(),
                attachments: vec![],
                images: vec![],
            },
        ];
        assert_eq!(
            shape(&transcript(&messages)),
            [
                "asked why? [\"screen\"]",
                "start",
                "tool c1 fs_read {\"path\":\"Makefile\"}",
                "tool c2 shell_exec {\"command\":\"rm -rf x\"}",
                "done c1 Makefile, lines 1-3 of 3",
                "failed c2 the user denied this",
                "start",
                "token A tab is missing.",
                "summarised",
                "end",
                "asked thanks []",
            ]
        );
        assert!(transcript(&[]).is_empty());
    }
}
