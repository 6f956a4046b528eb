//! Forking a conversation: its history copied under a new id, with a meta
//! line that says where it came from. Whatever the source left open is
//! closed in the copy, never continued: a call that was running there
//! (maybe still is) must not run twice because it now lives in two logs.

use crate::store::recovery::{self, CloseReason, Step};
use crate::store::session_log::{Entry, ForkOrigin, Record, UncertainDecision, LOG_FORMAT};

/// What the fork tells the model about a call that had not started.
pub const FORK_NOT_RUN_RESULT: &str =
    "not run: the conversation was forked before this call started; it never ran here.";

/// What the fork tells the model about a call whose effect is unknown.
pub const FORK_UNKNOWN_RESULT: &str = "not continued in this fork: the call was interrupted in \
the original conversation and its effect is unknown. Check the current state before repeating it.";

/// The fork's entries: its own meta line, then the source's entries, then
/// whatever closes what the source left open.
pub fn fork_entries(source: &[Record], source_id: &str, new_id: &str, cwd: &str) -> Vec<Entry> {
    let (provider, model) = source
        .iter()
        .find_map(|r| match &r.entry {
            Entry::Meta {
                provider, model, ..
            } => Some((provider.clone(), model.clone())),
            _ => None,
        })
        .unwrap_or_default();
    let mut records: Vec<Record> = vec![Record {
        id: "e1".into(),
        ts: String::new(),
        entry: Entry::Meta {
            session: new_id.to_string(),
            cwd: cwd.to_string(),
            provider,
            model,
            format: LOG_FORMAT,
            forked_from: Some(ForkOrigin {
                session: source_id.to_string(),
                records: source.len(),
            }),
        },
    }];
    records.extend(
        source
            .iter()
            .filter(|r| !matches!(r.entry, Entry::Meta { .. }))
            .cloned(),
    );
    loop {
        let closing = match recovery::plan(&records) {
            Step::DiscardDraft => vec![Entry::DraftDiscarded],
            Step::Close { call, reason } => vec![result(
                &call,
                match reason {
                    CloseReason::Abandoned => FORK_UNKNOWN_RESULT,
                    CloseReason::Denied => FORK_NOT_RUN_RESULT,
                },
            )],
            Step::ResolveUncertain(calls) => calls
                .iter()
                .flat_map(|u| {
                    [
                        Entry::UncertainDecided {
                            call_id: u.call.id.clone(),
                            decision: UncertainDecision::Abandon,
                        },
                        result(&u.call, FORK_UNKNOWN_RESULT),
                    ]
                })
                .collect(),
            Step::AskAgain(call) => vec![result(&call, FORK_NOT_RUN_RESULT)],
            Step::RunCalls(pending) => pending
                .iter()
                .map(|p| {
                    let text = if p.rerun {
                        FORK_UNKNOWN_RESULT
                    } else {
                        FORK_NOT_RUN_RESULT
                    };
                    result(&p.call, text)
                })
                .collect(),
            Step::CallModel | Step::Idle => break,
        };
        for entry in closing {
            let id = format!("e{}", records.len() + 1);
            records.push(Record {
                id,
                ts: String::new(),
                entry,
            });
        }
    }
    records.into_iter().map(|r| r.entry).collect()
}

fn result(call: &crate::message::ToolCall, text: &str) -> Entry {
    Entry::ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        is_error: true,
        for_model: text.to_string(),
        full: text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::store::session_log::StartProof;

    #[test]
    fn a_fork_closes_what_the_source_left_open_and_says_where_it_came_from() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "shell_exec".into(),
            arguments: "{}".into(),
        };
        let entries = vec![
            Entry::Meta {
                session: "src".into(),
                cwd: "/w".into(),
                provider: "openai".into(),
                model: "m".into(),
                format: LOG_FORMAT,
                forked_from: None,
            },
            Entry::User {
                text: "q".into(),
                attachments: vec![],
                images: vec![],
            },
            Entry::Assistant {
                text: String::new(),
                reasoning: String::new(),
                tool_calls: vec![call("a"), call("b")],
                finish: "tool_calls".into(),
                reasoning_blocks: vec![],
            },
            Entry::ToolStart {
                call_id: "a".into(),
                name: "shell_exec".into(),
                arguments: "{}".into(),
                proof: StartProof::Unproven,
                run_tag: None,
            },
        ];
        let source: Vec<Record> = entries
            .into_iter()
            .enumerate()
            .map(|(i, entry)| Record {
                id: format!("e{}", i + 1),
                ts: "t".into(),
                entry,
            })
            .collect();
        let forked = fork_entries(&source, "src", "new", "/w");
        assert!(matches!(
            &forked[0],
            Entry::Meta { session, forked_from: Some(o), .. } if session == "new" && o.session == "src" && o.records == 4
        ));
        let results: Vec<&str> = forked
            .iter()
            .filter_map(|e| match e {
                Entry::ToolResult { for_model, .. } => Some(for_model.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(results, vec![FORK_UNKNOWN_RESULT, FORK_NOT_RUN_RESULT]);
        let records: Vec<Record> = forked
            .into_iter()
            .map(|entry| Record {
                id: String::new(),
                ts: String::new(),
                entry,
            })
            .collect();
        assert_eq!(recovery::plan(&records), Step::CallModel);
        assert!(recovery::unresolved_uncertain(&records).is_empty());
    }
}
