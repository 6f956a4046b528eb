//! The compactor against a fake model whose request size is the sum of
//! its messages: the trim break-even in both directions, and the fixed
//! comparison policy.

use ai_tools::CancelToken;

use super::*;
use crate::conversation::ConvState;

/// Sizes requests without serialising; never summarises.
struct Fake;

const BASE: usize = 1000;

impl SummaryModel for Fake {
    fn request_bytes(&self, messages: &[Message]) -> usize {
        BASE + messages
            .iter()
            .map(|m| match m {
                Message::ToolResult { content, .. } => content.len(),
                Message::User { text, .. } => text.len(),
                Message::Assistant { text, .. } => text.len() + 50,
                Message::Summary(t) | Message::Notice(t) | Message::Environment(t) => t.len(),
            })
            .sum::<usize>()
    }

    fn summarise(&self, _: &[Message], _: bool, _: &CancelToken) -> Result<String, EngineError> {
        Err(EngineError::Network("the fake cannot summarise".into()))
    }

    fn classify(&self, _: &ToolCall) -> Activity {
        Activity::Other
    }

    fn window(&self) -> ContextWindow {
        ContextWindow {
            tokens: 100_000,
            source: WindowSource::Configured,
        }
    }
}

/// A conversation of one question and rounds whose results have these sizes.
fn conversation(results: &[usize]) -> Conversation {
    let mut messages = vec![
        Message::Environment("env".into()),
        Message::User {
            text: "go".into(),
            attachments: vec![],
            images: vec![],
        },
    ];
    for (i, size) in results.iter().enumerate() {
        let call = ToolCall {
            id: format!("c{i}"),
            name: "fs_read".into(),
            arguments: "{}".into(),
        };
        messages.push(Message::Assistant {
            text: String::new(),
            tool_calls: vec![call],
            reasoning_blocks: vec![],
        });
        messages.push(Message::ToolResult {
            call_id: format!("c{i}"),
            name: "fs_read".into(),
            content: "r".repeat(*size),
            is_error: false,
        });
    }
    let mut st = ConvState::new("t".into(), std::path::Path::new("/"), None);
    st.messages = messages;
    Conversation::from_state(st)
}

fn check(conv: &Conversation, policy: CompactionPolicy) -> Option<CompactionReport> {
    let (tx, _rx) = crossbeam_channel::unbounded();
    let em = Emitter::new(tx, crossbeam_channel::never(), None, CancelToken::new());
    let settings = CompactionSettings::default();
    let c = Compactor {
        model: &Fake,
        policy,
        settings: &settings,
    };
    c.run(conv, false, &em, &CancelToken::new()).unwrap()
}

#[test]
fn one_huge_old_result_is_trimmed_because_it_pays_back() {
    // 150 KB early, then small rounds: past the soft threshold (160 KB),
    // no boundary; re-reading 12 KB once beats reading 150 KB each round.
    let mut sizes = vec![150_000];
    sizes.extend([1_000; 11]);
    let conv = conversation(&sizes);
    let r = check(&conv, CompactionPolicy::Adaptive);
    assert!(
        matches!(r, Some(CompactionReport::Trimmed { results: 1, bytes_after, .. }) if bytes_after < 20_000),
        "{r:?}"
    );
    let history = conv.messages();
    assert!(
        matches!(&history[3], Message::ToolResult { content, .. } if content.contains("(150000 bytes)"))
    );
}

#[test]
fn an_old_result_before_a_long_history_is_not_trimmed() {
    // 30 KB saved would break a 130 KB cached prefix, and the history
    // regrows to the soft threshold in ~20 rounds: it never pays back.
    let mut sizes = vec![30_000];
    sizes.extend([1_000; 125]);
    let conv = conversation(&sizes);
    let before = conv.messages();
    assert_eq!(check(&conv, CompactionPolicy::Adaptive), None);
    assert_eq!(conv.messages(), before);
}

#[test]
fn the_fixed_policy_summarises_past_its_budget_and_never_trims() {
    let conv = conversation(&[150_000, 1_000]);
    let r = check(
        &conv,
        CompactionPolicy::FixedBudget {
            budget_bytes: 120 * 1024,
        },
    );
    // The fake cannot summarise: the failure is reported, history kept.
    assert!(
        matches!(
            &r,
            Some(CompactionReport::Failed {
                trigger: Trigger::FixedBudget,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(conv.messages().len(), 6);
    assert_eq!(
        conv.lock().compaction.cooldown,
        SUMMARY_RETRY_COOLDOWN_ROUNDS
    );
}
