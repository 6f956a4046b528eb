//! The agent's side of the memory curator: what it reads of a
//! conversation and how it asks the fast model. A child of the agent loop (`agent`),
//! so requests are still built in one place.

use std::path::PathBuf;

use ai_tools::secrets::{contains_key_like, redact, redact_key_like, secret_values};
use ai_tools::CancelToken;

use super::Agent;
use crate::conversation::Conversation;
use crate::memory::patch::{MAX_FACT_CHARS, MAX_PATCH_OPS, NOTHING};
use crate::memory::store::apply_patch;
use crate::memory::{MemoryError, MemoryFile, MemoryPaths, MemoryReport, MemoryScope, Patch};
use crate::message::Message;

/// Bytes of conversation text the curator reads at most, the newest kept:
/// facts worth keeping are stated in a few sentences, and the fast model's
/// window and price stay small.
const MAX_TRANSCRIPT_BYTES: usize = 32 * 1024;

/// The curator's system prompt. Its first words name it for the test
/// provider (`koi_testkit::MEMORY_MARKER`).
fn curator_system() -> String {
    format!(
        "You are koi's memory curator. You read one conversation between a user and koi, a \
terminal assistant, and the memory koi keeps between conversations. Decide which durable facts \
are worth keeping: the user's stable preferences and circumstances (global), and facts about \
the project the conversation ran in (project): how it builds and tests, its conventions, \
decisions made. Keep nothing temporary (the task of the moment), nothing you would need to \
guess, and never a key, token, password or other secret. Drop memory lines the conversation \
shows are stale or wrong.

Answer with patch lines only, one change per line, at most {MAX_PATCH_OPS} lines:
ADD global: <one fact about the user, at most {MAX_FACT_CHARS} characters>
ADD project: <one fact about the project>
DROP global: <a line of the current global memory, exactly as written>
DROP project: <a line of the current project memory, exactly as written>
If nothing should change, answer with the single word {NOTHING}. No other text, no code fences."
    )
}

/// What the curator may read of a conversation, taken when a turn ends
/// or the conversation is closed: its user and assistant words only, so
/// the curator holds no handle (and no lock) on the conversation itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    /// The session id.
    pub id: String,
    /// Where it ran (the project whose memory it feeds).
    pub cwd: PathBuf,
    /// Messages in the conversation then.
    pub total: usize,
    /// `(index, "user: …" | "assistant: …")`, in order.
    lines: Vec<(usize, String)>,
}

impl Snapshot {
    /// The user's and the assistant's words, without tool calls, tool
    /// results, attachments, images, notices or summaries: text that came
    /// from outside (a file, a page, the terminal) must not persist.
    pub fn of(conv: &Conversation) -> Snapshot {
        let messages = conv.messages();
        Snapshot {
            id: conv.id(),
            cwd: conv.cwd(),
            total: messages.len(),
            lines: words(&messages),
        }
    }

    /// The words of messages `from..`, newest kept within the budget.
    fn transcript(&self, from: usize) -> String {
        let mut parts: Vec<&str> = Vec::new();
        let mut size = 0;
        for (_, line) in self.lines.iter().rev().take_while(|(i, _)| *i >= from) {
            size += line.len() + 1;
            if size > MAX_TRANSCRIPT_BYTES && !parts.is_empty() {
                break;
            }
            parts.push(line);
        }
        parts.reverse();
        parts.join("\n")
    }
}

fn words(messages: &[Message]) -> Vec<(usize, String)> {
    messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::User { text, .. } if !text.trim().is_empty() => {
                Some((i, format!("user: {}", text.trim())))
            }
            Message::Assistant { text, .. } if !text.trim().is_empty() => {
                Some((i, format!("assistant: {}", text.trim())))
            }
            _ => None,
        })
        .collect()
}

impl Agent {
    /// Text with every secret this process knows of (configured key,
    /// secret environment values) and every key-shaped word replaced.
    fn scrubbed(&self, text: &str) -> String {
        let cfg = self.client.config();
        let mut values = secret_values(&cfg.key_env_vars);
        if let Some(k) = &cfg.api_key {
            values.push(k.expose().to_string());
            values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
        redact_key_like(&redact(text, &values))
    }

    /// Whether a fact holds anything secret.
    fn holds_secret(&self, fact: &str) -> bool {
        contains_key_like(fact) || self.scrubbed(fact) != fact
    }

    /// One curation: reads the words of messages `from..` and the memory
    /// for the conversation's workspace, asks the fast model for a patch
    /// and applies it.
    pub(crate) fn curate(
        &self,
        snap: &Snapshot,
        from: usize,
        paths: &MemoryPaths,
        cancel: &CancelToken,
    ) -> Result<MemoryReport, MemoryError> {
        let text = snap.transcript(from);
        let id = snap.id.clone();
        if text.is_empty() {
            return Ok(MemoryReport {
                conversation: id,
                changes: Vec::new(),
            });
        }
        let mut body = String::new();
        for scope in [MemoryScope::Global, MemoryScope::Project] {
            let file = MemoryFile::read(paths.file(scope))?;
            body.push_str(&format!(
                "<memory scope=\"{scope}\">\n{}</memory>\n",
                file.text()
            ));
        }
        body.push_str(&format!(
            "<conversation workspace=\"{}\">\n{}\n</conversation>",
            snap.cwd.display(),
            self.scrubbed(&text)
        ));
        let asking = [Message::User {
            text: body,
            attachments: Vec::new(),
            images: Vec::new(),
        }];
        let system = curator_system();
        let req = self.request(self.client.fast_model(), &system, &asking, false);
        let answer = self
            .client
            .side_request(&req, cancel)
            .map_err(|e| MemoryError::Request(e.to_string()))?;
        let patch = Patch::parse(&answer)?;
        let changes = apply_patch(paths, &patch, &id, &|f| self.holds_secret(f))?;
        Ok(MemoryReport {
            conversation: id,
            changes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    #[test]
    fn the_transcript_is_words_only() {
        let messages = vec![
            Message::Environment("<environment>cwd: /x</environment>".into()),
            Message::User {
                text: "read notes.txt".into(),
                attachments: vec![crate::message::Attachment {
                    kind: crate::message::AttachmentKind::Terminal,
                    label: "pane".into(),
                    content: "TERMINAL-SECRET-TEXT".into(),
                }],
                images: Vec::new(),
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "fs_read".into(),
                    arguments: "{\"path\":\"notes.txt\"}".into(),
                }],
                reasoning_blocks: Vec::new(),
            },
            Message::ToolResult {
                call_id: "c1".into(),
                name: "fs_read".into(),
                content: "TOOL-OUTPUT-TEXT".into(),
                is_error: false,
            },
            Message::Notice("a notice".into()),
            Message::Assistant {
                text: "It says hello.".into(),
                tool_calls: Vec::new(),
                reasoning_blocks: Vec::new(),
            },
        ];
        let snap = Snapshot {
            id: "s".into(),
            cwd: PathBuf::from("/x"),
            total: messages.len(),
            lines: words(&messages),
        };
        assert_eq!(
            snap.transcript(0),
            "user: read notes.txt\nassistant: It says hello."
        );
        assert_eq!(snap.transcript(2), "assistant: It says hello.");
        assert_eq!(snap.transcript(6), "");
    }
}
