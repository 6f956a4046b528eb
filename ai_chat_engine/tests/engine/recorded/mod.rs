//! Real provider streams, recorded by public SDK and test repositories
//! (`fixtures/recorded/*/README.md` names each source), replayed on
//! loopback in many chunkings. What the engine produced is checked
//! against what a small reader of the recording, independent of koi's
//! parsers, says the stream carried: the answer text, the reasoning kept
//! apart, the tool calls with their arguments, the usage, and for a
//! failed stream the provider's own words.

mod anthropic;
mod chat;
mod responses;

use std::path::PathBuf;

use ai_chat_engine::{Event, Message, ProviderKind};
use koi_testkit::{FakeProvider, Reply};
use serde_json::Value;

use crate::common::*;

/// How a recorded stream should end for the user.
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    /// A complete answer (after the follow-up round when it called tools).
    Done,
    /// An error whose text contains this piece of the provider's message.
    Error(&'static str),
    /// An early stop, in the provider's word.
    Incomplete(&'static str),
    /// A refusal, its explanation containing this.
    Refused(&'static str),
    /// Paused by the provider (`pause_turn`), then carried on by one more
    /// request, whose answer completes the turn.
    Paused,
}

/// One recording and how it ends.
pub struct Case {
    pub name: &'static str,
    pub outcome: Outcome,
}

/// A tool call as the recording carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Value,
}

/// What the recording carried, read without koi's parsers.
#[derive(Debug, Default)]
pub struct Expect {
    pub text: String,
    pub reasoning: String,
    pub calls: Vec<Call>,
    /// Input (cached included), cached input, output.
    pub usage: Option<(u64, u64, u64)>,
}

/// The `data:` payloads of a recording, split on blank lines the plain
/// way (the engine's parser is the thing under test, so not used here).
pub fn payloads(bytes: &[u8]) -> Vec<Value> {
    let text = String::from_utf8(bytes.to_vec())
        .unwrap()
        .replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            if data.is_empty() || data.trim() == "[DONE]" {
                return None;
            }
            Some(serde_json::from_str(&data).unwrap())
        })
        .collect()
}

/// The calls as a `Vec` in first-seen order, from `(key, name, args)`.
pub fn calls_in_order(parts: Vec<(String, String, String)>) -> Vec<Call> {
    parts
        .into_iter()
        .map(|(_, name, args)| Call {
            name,
            // A call cut by a length stop has no whole arguments.
            args: if args.trim().is_empty() {
                serde_json::json!({})
            } else {
                serde_json::from_str(&args).unwrap_or(Value::String(args))
            },
        })
        .collect()
}

pub fn recording(dialect: &str, name: &str) -> Vec<u8> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests/engine/fixtures/recorded",
        dialect,
        &format!("{name}.sse"),
    ]
    .iter()
    .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A small deterministic generator, so a failing split can be replayed.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Longest random piece: short enough that most UTF-8 characters and
/// `\r\n` pairs of a recording fall across a cut somewhere.
const MAX_RANDOM_PIECE: u64 = 24;

/// The ways each recording is written: whole, a byte at a time, seven
/// bytes at a time, random pieces, and random pieces of the same stream
/// with `\r\n` line ends (both are valid SSE).
pub fn chunkings(bytes: &[u8], seed: u64) -> Vec<(String, Vec<Vec<u8>>)> {
    let fixed = |n: usize| bytes.chunks(n).map(<[u8]>::to_vec).collect::<Vec<_>>();
    let random = |b: &[u8], seed: u64| {
        let mut rng = XorShift(seed | 1);
        let mut out = Vec::new();
        let mut at = 0;
        while at < b.len() {
            let n = (1 + rng.next() % MAX_RANDOM_PIECE) as usize;
            let end = (at + n).min(b.len());
            out.push(b[at..end].to_vec());
            at = end;
        }
        out
    };
    let crlf: Vec<u8> = String::from_utf8(bytes.to_vec())
        .unwrap()
        .replace("\r\n", "\n")
        .replace('\n', "\r\n")
        .into_bytes();
    vec![
        ("whole".into(), vec![bytes.to_vec()]),
        ("1-byte".into(), fixed(1)),
        ("7-byte".into(), fixed(7)),
        (format!("random seed {seed}"), random(bytes, seed)),
        (
            format!("crlf random seed {seed}"),
            random(&crlf, seed ^ 0x5bd1),
        ),
    ]
}

/// True when some piece boundary falls inside a multi-byte character.
pub fn cuts_utf8(chunks: &[Vec<u8>]) -> bool {
    chunks
        .iter()
        .skip(1)
        .any(|c| c.first().is_some_and(|b| b & 0xC0 == 0x80))
}

/// Replays `bytes` in every chunking against a fresh engine for `kind`,
/// checking the turn against `expect` and `outcome`. `follow_up` answers
/// the round after the recorded tool calls ran.
pub fn replay(
    kind: ProviderKind,
    case: &Case,
    bytes: &[u8],
    expect: &Expect,
    follow_up: impl Fn() -> Reply,
) -> bool {
    let seed = bytes.len() as u64 ^ 0x9e37_79b9;
    let mut cut = false;
    for (how, chunks) in chunkings(bytes, seed) {
        cut |= cuts_utf8(&chunks);
        let ctx = format!("{} ({how})", case.name);
        let calls = matches!(case.outcome, Outcome::Done) && !expect.calls.is_empty();
        let continued = calls || matches!(case.outcome, Outcome::Paused);
        let mut replies = vec![Reply::sse_bytes(chunks)];
        if continued {
            replies.push(follow_up());
        }
        let server = FakeProvider::start(replies);
        let h = harness_with(&server, kind, |_| {});
        let conv = h.engine.new_conversation();
        let msgs = run(&h.engine, &conv, "hello");
        let answer = tokens(&msgs);
        let follow_text = if continued { FOLLOW_UP_TEXT } else { "" };
        assert_eq!(
            answer,
            format!("{}{follow_text}", expect.text),
            "{ctx}: answer"
        );
        assert_eq!(reasoning(&msgs), expect.reasoning, "{ctx}: reasoning");
        let got_usage = usage(&msgs).first().copied();
        if let Some(u) = expect.usage {
            assert_eq!(got_usage, Some(u), "{ctx}: usage");
        }
        match case.outcome {
            Outcome::Done | Outcome::Paused => {
                assert!(is_done(&msgs), "{ctx}: {:?}", msgs.last())
            }
            Outcome::Refused(words) => {
                let e = error_of(&msgs);
                assert!(
                    kind_of(&msgs) == ErrorKind::Refused && message_of(&msgs).contains(words),
                    "{ctx}: {e:?} is not a refusal saying {words:?}"
                );
            }
            Outcome::Error(words) => {
                let shown = message_of(&msgs).to_string();
                assert!(shown.contains(words), "{ctx}: {shown:?} lacks {words:?}");
            }
            Outcome::Incomplete(reason) => assert_eq!(
                error_of(&msgs),
                &ai_chat_engine::EngineError::Incomplete {
                    reason: reason.into()
                }
                .to_event(),
                "{ctx}"
            ),
        }
        if calls {
            let got: Vec<Call> = conv
                .messages()
                .iter()
                .find_map(|m| match m {
                    Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                        Some(tool_calls.clone())
                    }
                    _ => None,
                })
                .unwrap_or_default()
                .into_iter()
                .map(|c| Call {
                    name: c.name,
                    args: serde_json::from_str(&c.arguments).unwrap(),
                })
                .collect();
            assert_eq!(got, expect.calls, "{ctx}: tool calls");
            assert_eq!(
                count(&msgs, |m| matches!(m, Event::ToolStart { .. })),
                expect.calls.len(),
                "{ctx}: calls run"
            );
        }
        drop(h);
        server.finish();
    }
    cut
}

/// What the scripted round after the tool calls says.
pub const FOLLOW_UP_TEXT: &str = "Done.";

/// Replays every case of a dialect, each on its own, and fails once at
/// the end naming every recording that went wrong (each one's panic
/// says how).
pub fn replay_all(
    dialect: &str,
    cases: &[Case],
    expect: fn(&[u8]) -> Expect,
    run_case: impl Fn(&Case, &[u8], &Expect) -> bool,
) {
    let mut cut = false;
    let failed: Vec<&str> = cases
        .iter()
        .filter(|case| {
            let bytes = recording(dialect, case.name);
            let expect = expect(&bytes);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_case(case, &bytes, &expect)
            }));
            cut |= outcome.as_ref().is_ok_and(|c| *c);
            outcome.is_err()
        })
        .map(|case| case.name)
        .collect();
    assert!(
        failed.is_empty(),
        "{dialect}: these recordings failed: {failed:?}"
    );
    assert!(cut, "{dialect}: no chunking cut a UTF-8 character");
}
