//! The offline demo "model": a scripted reply that shows a read-only tool
//! call, then a call that needs approval, then how to configure a real
//! model. Clearly labelled; never pretends to be an assistant.

use super::{Delta, Finish, FinishKind, StepOutput};
use crate::message::{Message, ToolCall};

/// What the demo says on its first round.
const INTRO: &str = "**koi demo** — no model is configured, so this is a scripted offline demo, \
not a real answer. It shows what a turn looks like. First a read-only tool call, which runs \
without asking:";

const ASK: &str = "Next, a call that writes a small file (`koi-demo.txt`) here, so koi asks you \
first. Approve or deny it:";

const OUTRO: &str = "That is the whole demo: tool calls stream in, read-only ones just run, \
and anything else waits for your approval. To talk to a real model, add an `[ai]` section to \
~/.config/koi/koi.toml, e.g. `provider = \"openai\"`, `base_url = \"http://127.0.0.1:11434/v1\"`, \
`model = \"qwen2.5-coder\"` (for a hosted model also set KOI_API_KEY), or start a local \
OpenAI-compatible server such as Ollama.";

/// One demo round.
pub(crate) struct DemoStep {
    pub deltas: Vec<Delta>,
    pub output: StepOutput,
}

fn words(text: &str) -> Vec<Delta> {
    text.split_inclusive(' ')
        .map(|w| Delta::Text(w.to_string()))
        .collect()
}

/// The demo's answer to `messages` (decided by how many tool results the
/// current turn has so far).
pub(crate) fn step(messages: &[Message]) -> DemoStep {
    let results_this_turn = messages
        .iter()
        .rev()
        .take_while(|m| !matches!(m, Message::User { .. }))
        .filter(|m| matches!(m, Message::ToolResult { .. }))
        .count();
    let (text, call) = match results_this_turn {
        0 => (INTRO, Some(("demo-1", "fs_list", r#"{"path":"."}"#))),
        1 => (
            ASK,
            Some((
                "demo-2",
                "fs_write",
                r#"{"path":"koi-demo.txt","content":"Written by the koi demo after you approved it. Safe to delete.\n","expected_revision":"absent"}"#,
            )),
        ),
        _ => (OUTRO, None),
    };
    let mut deltas = vec![Delta::Reasoning(
        "(demo: scripted, no model involved)".into(),
    )];
    deltas.extend(words(text));
    let tool_calls: Vec<ToolCall> = call
        .map(|(id, name, args)| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        })
        .into_iter()
        .collect();
    let kind = if tool_calls.is_empty() {
        FinishKind::Stop
    } else {
        FinishKind::ToolCalls
    };
    DemoStep {
        deltas,
        output: StepOutput {
            text: text.to_string(),
            tool_calls,
            reasoning_blocks: Vec::new(),
            finish: Finish {
                kind,
                raw: "demo".into(),
                detail: None,
            },
            usage: None,
        },
    }
}
