//! The history transforms a compaction applies: fold older messages into
//! a summary (or a drop marker) and trim old tool results. Each is a pure
//! function of the messages and what the log records, so replaying the
//! log rebuilds exactly the history the model saw.

use crate::message::Message;

/// The instruction appended (in-band, after the unchanged prefix) when
/// asking for a summary. It begins with the marker test fixtures look for.
pub const SUMMARY_INSTRUCTION: &str = "Context budget reached: the older part of this \
conversation is about to be replaced by your summary, and the most recent messages will stay \
as they are. Do not call any tools. Write a concise summary of the conversation so far that \
lets you continue the work: the user's goals, decisions made, files read or changed (with \
paths), commands run and their outcomes, open problems and next steps. Reply with the summary \
only.";

/// A tool result smaller than this is never trimmed: its bytes cannot
/// repay the broken prefix.
pub const TRIM_MIN_RESULT_BYTES: usize = 8 * 1024;

/// History after a summary: the fixed context (project instructions and
/// the environment message, if first), the summary, then
/// `messages[keep_from..]`.
pub fn apply_summary(messages: &[Message], summary: &str, keep_from: usize) -> Vec<Message> {
    let lead = crate::project_instructions::leading_context(messages);
    let mut out: Vec<Message> = messages[..lead].to_vec();
    out.push(Message::Summary(summary.to_string()));
    out.extend(messages.iter().skip(keep_from.max(lead).max(1)).cloned());
    out
}

/// Where the verbatim tail should start: the earliest user or assistant
/// message (never a tool result, which must follow its call) such that the
/// tail stays within `tail_bytes`. `None` when there is nothing old enough
/// to fold.
pub fn choose_keep_from(
    messages: &[Message],
    size_of: &dyn Fn(&Message) -> usize,
    tail_bytes: usize,
) -> Option<usize> {
    let mut tail = 0usize;
    let mut keep_from = None;
    for i in (1..messages.len()).rev() {
        tail += size_of(&messages[i]);
        if tail > tail_bytes && keep_from.is_some() {
            break;
        }
        if !matches!(messages[i], Message::ToolResult { .. }) {
            keep_from = Some(i);
        }
    }
    // Keeping everything from index 1 on means there is nothing to fold.
    keep_from.filter(|&k| k > 2)
}

/// Longest quote of one dropped user request in the drop marker.
const MARKER_QUOTE_CHARS: usize = 120;
/// Most user requests quoted in the drop marker.
const MARKER_QUOTES: usize = 8;

/// What the model is told in place of history dropped because no summary
/// could be had: how much, what it held, and why.
pub fn drop_marker(dropped: &[Message], bytes: usize, why: &str) -> String {
    let users: Vec<&str> = dropped
        .iter()
        .filter_map(|m| match m {
            Message::User { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls: usize = dropped
        .iter()
        .map(|m| match m {
            Message::Assistant { tool_calls, .. } => tool_calls.len(),
            _ => 0,
        })
        .sum();
    let mut out = format!(
        "{} earlier messages (about {} KB) were DROPPED from your context: the context window \
         was nearly full and summarising them failed ({why}). They held {} user message(s) and \
         {calls} tool call(s) with their results. The session log keeps all of it; ask the user \
         if you need something from that part. The dropped user messages began:",
        dropped.len(),
        bytes / 1024,
        users.len(),
    );
    for u in users.iter().take(MARKER_QUOTES) {
        let line = u.lines().next().unwrap_or("");
        let quote: String = line.chars().take(MARKER_QUOTE_CHARS).collect();
        out.push_str(&format!("\n- {quote:?}"));
    }
    if users.len() > MARKER_QUOTES {
        out.push_str(&format!("\n- … and {} more", users.len() - MARKER_QUOTES));
    }
    out
}

/// What a trimmed tool result becomes: its size is all that is left.
pub fn trimmed_result(original_bytes: usize) -> String {
    format!(
        "[koi trimmed this old tool result ({original_bytes} bytes) from the context to save \
         space; the session log keeps it. Call the tool again if you need it.]"
    )
}

/// Trims the results of `call_ids` in place.
pub fn apply_trim(messages: &mut [Message], call_ids: &[String]) {
    for m in messages.iter_mut() {
        if let Message::ToolResult {
            call_id, content, ..
        } = m
        {
            if call_ids.contains(call_id) {
                *content = trimmed_result(content.len());
            }
        }
    }
}

/// Old tool results worth trimming: outside the tail that starts at
/// `keep_from`, large, and not trimmed already. Returns their call ids
/// and the index of the first.
pub fn trim_candidates(messages: &[Message], keep_from: usize) -> (Vec<String>, Option<usize>) {
    let mut ids = Vec::new();
    let mut first = None;
    for (i, m) in messages.iter().enumerate().take(keep_from) {
        if let Message::ToolResult {
            call_id, content, ..
        } = m
        {
            let already = content.starts_with("[koi trimmed this old tool result");
            if content.len() >= TRIM_MIN_RESULT_BYTES && !already {
                ids.push(call_id.clone());
                first.get_or_insert(i);
            }
        }
    }
    (ids, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, content: String) -> Message {
        Message::ToolResult {
            call_id: id.into(),
            name: "t".into(),
            content,
            is_error: false,
        }
    }

    #[test]
    fn keep_from_never_splits_a_call_from_its_result() {
        let tail_bytes = 32 * 1024;
        let big = "x".repeat(tail_bytes / 2);
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
            msgs.push(result(&format!("c{i}"), big.clone()));
        }
        let size = |m: &Message| match m {
            Message::ToolResult { content, .. } => content.len(),
            _ => 10,
        };
        let k = choose_keep_from(&msgs, &size, tail_bytes).unwrap();
        assert!(!matches!(msgs[k], Message::ToolResult { .. }));
        let out = apply_summary(&msgs, "sum", k);
        assert_eq!(out[0], Message::Environment("env".into()));
        assert_eq!(out[1], Message::Summary("sum".into()));
        assert_eq!(out.len(), 2 + msgs.len() - k);
        // A tail as large as the history leaves nothing to fold.
        assert_eq!(choose_keep_from(&msgs, &size, usize::MAX), None);
    }

    #[test]
    fn the_drop_marker_says_what_was_dropped() {
        let dropped = vec![
            Message::User {
                text: "fix the parser\nplease".into(),
                attachments: vec![],
                images: vec![],
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![crate::message::ToolCall {
                    id: "c1".into(),
                    name: "fs_read".into(),
                    arguments: "{}".into(),
                }],
                reasoning_blocks: vec![],
            },
            result("c1", "x".repeat(4096)),
        ];
        let m = drop_marker(&dropped, 5000, "HTTP 500");
        assert!(m.contains("3 earlier messages"), "{m}");
        assert!(m.contains("HTTP 500"));
        assert!(m.contains("1 tool call"));
        assert!(m.contains("\"fix the parser\""));
    }

    #[test]
    fn trims_only_large_old_results_once() {
        let mut msgs = vec![
            result("a", "x".repeat(TRIM_MIN_RESULT_BYTES)),
            result("b", "small".into()),
            result("c", "y".repeat(TRIM_MIN_RESULT_BYTES * 2)),
            result("d", "z".repeat(TRIM_MIN_RESULT_BYTES * 2)),
        ];
        let (ids, first) = trim_candidates(&msgs, 3);
        assert_eq!(ids, ["a", "c"]);
        assert_eq!(first, Some(0));
        apply_trim(&mut msgs, &ids);
        assert!(matches!(&msgs[2], Message::ToolResult { content, .. }
            if content.contains(&format!("({} bytes)", TRIM_MIN_RESULT_BYTES * 2))));
        assert_eq!(trim_candidates(&msgs, 3).0, Vec::<String>::new());
    }
}
