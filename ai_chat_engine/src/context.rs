//! Context management: what the model sees of large tool results, and how
//! older history is summarised when a request outgrows its budget.
//!
//! History is never trimmed between rounds just to save bytes: any change
//! before the end of the prefix makes the provider re-read everything after
//! it. Summarising is the one deliberate exception, and it is recorded.

use crate::budgets::{COMPACTION_RAW_TAIL_BYTES, TOOL_RESULT_MODEL_BYTES};
use crate::message::{untrusted, Message};

/// The instruction appended (in-band, after the unchanged prefix) when
/// asking for a summary.
pub const SUMMARY_INSTRUCTION: &str = "Context budget reached. Do not call any tools. Write a \
concise summary of the conversation so far that lets you continue the work: the user's goals, \
decisions made, files read or changed (with paths), commands run and their outcomes, open \
problems and next steps. Reply with the summary only.";

/// Part of a large tool result kept at the start (bytes).
const HEAD_BYTES: usize = TOOL_RESULT_MODEL_BYTES * 3 / 4;
/// Part kept at the end: errors and totals usually sit there.
const TAIL_BYTES: usize = TOOL_RESULT_MODEL_BYTES / 5;

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// A tool's text as the model sees it: head + tail with a marker when
/// larger than [`TOOL_RESULT_MODEL_BYTES`] (the log keeps it whole).
pub fn clip_for_model(text: &str) -> String {
    if text.len() <= TOOL_RESULT_MODEL_BYTES {
        return text.to_string();
    }
    let head_end = floor_boundary(text, HEAD_BYTES);
    let tail_start = ceil_boundary(text, text.len() - TAIL_BYTES);
    let elided = tail_start - head_end;
    format!(
        "{}\n[… {elided} bytes elided here; the session log keeps the whole output. To see the \
         missing part, call the tool again with a narrower range (e.g. start_line/end_line, a \
         more specific pattern or path) …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// A successful tool result as shown to the model: clipped and labelled as
/// untrusted data.
pub fn tool_result_view(tool: &str, for_model: &str) -> String {
    untrusted("tool-output", tool, &clip_for_model(for_model))
}

/// A failed tool call's error as shown to the model: the message can
/// quote outside text (a file name, a server's reply), so it is wrapped as
/// untrusted data too.
pub fn tool_error_view(tool: &str, message: &str) -> String {
    format!(
        "error: the call failed; the tool's message follows.\n{}",
        untrusted("tool-error", tool, &clip_for_model(message))
    )
}

/// History after a summary: the environment message (if first), the
/// summary, then `messages[keep_from..]`.
pub fn apply_summary(messages: &[Message], summary: &str, keep_from: usize) -> Vec<Message> {
    let mut out = Vec::new();
    if let Some(env @ Message::Environment(_)) = messages.first() {
        out.push(env.clone());
    }
    out.push(Message::Summary(summary.to_string()));
    out.extend(messages.iter().skip(keep_from.max(1)).cloned());
    out
}

/// Where the verbatim tail should start: the earliest user or assistant
/// message (never a tool result, which must follow its call) such that the
/// tail stays within [`COMPACTION_RAW_TAIL_BYTES`]. `None` when there is
/// nothing old enough to summarise.
pub fn choose_keep_from(
    messages: &[Message],
    size_of: &dyn Fn(&Message) -> usize,
) -> Option<usize> {
    let mut tail = 0usize;
    let mut keep_from = None;
    for i in (1..messages.len()).rev() {
        tail += size_of(&messages[i]);
        if tail > COMPACTION_RAW_TAIL_BYTES && keep_from.is_some() {
            break;
        }
        if !matches!(messages[i], Message::ToolResult { .. }) {
            keep_from = Some(i);
        }
    }
    // Keeping everything from index 1 on means there is nothing to fold.
    keep_from.filter(|&k| k > 2)
}

/// Placeholder recorded when summarising failed and old turns are dropped.
pub fn dropped_placeholder(count: usize) -> String {
    format!(
        "{count} earlier messages were dropped to fit the context budget (summarising them \
         failed). Ask the user if you need something from that part of the conversation."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_head_tail_and_says_how_much() {
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let out = clip_for_model(&text);
        assert!(out.len() < TOOL_RESULT_MODEL_BYTES + 400);
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 4999\n"));
        assert!(out.contains("bytes elided"));
        let multibyte = "é".repeat(20_000);
        assert!(clip_for_model(&multibyte).contains("elided"));
        assert_eq!(clip_for_model("short"), "short");
    }

    #[test]
    fn keep_from_never_splits_a_call_from_its_result() {
        let big = "x".repeat(COMPACTION_RAW_TAIL_BYTES / 2);
        let mut msgs = vec![Message::Environment("env".into())];
        for i in 0..6 {
            msgs.push(Message::User {
                text: format!("q{i}"),
                attachments: vec![],
                images: vec![],
            });
            msgs.push(Message::Assistant {
                text: String::new(),
                tool_calls: vec![],
                reasoning_blocks: vec![],
            });
            msgs.push(Message::ToolResult {
                call_id: format!("c{i}"),
                name: "t".into(),
                content: big.clone(),
                is_error: false,
            });
        }
        let size = |m: &Message| match m {
            Message::ToolResult { content, .. } => content.len(),
            _ => 10,
        };
        let k = choose_keep_from(&msgs, &size).unwrap();
        assert!(!matches!(msgs[k], Message::ToolResult { .. }));
        let out = apply_summary(&msgs, "sum", k);
        assert_eq!(out[0], Message::Environment("env".into()));
        assert_eq!(out[1], Message::Summary("sum".into()));
        assert_eq!(out.len(), 2 + msgs.len() - k);
    }
}
