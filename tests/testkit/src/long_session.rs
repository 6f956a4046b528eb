//! A scripted long coding session: turns of read-only investigation,
//! edits and a test run, as a model would drive them through koi's tools
//! (`fs_read`, `fs_write`, `shell_exec`). Tests and benches of compaction
//! run the same session, so their figures compare.
//!
//! Each turn request gets the session's next step; summary requests get
//! a short summary and do not advance it.

use std::path::Path;
use std::sync::Mutex;

use crate::checks::RequestKind;
use crate::dialects::openai_chat::ChatStream;
use crate::recorded::RecordedRequest;
use crate::reply::Reply;

/// Files the session reads.
const FILES: usize = 12;

/// Rounds per turn (the last answers in text), cycled.
const TURN_LENGTHS: [usize; 8] = [9, 12, 7, 14, 10, 11, 8, 13];

/// The script the session's tests run.
pub const TEST_SCRIPT: &str = "run_tests.sh";

/// What one model round does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionStep {
    /// `fs_read` of a workspace file.
    Read(String),
    /// `fs_write` of a file with this content.
    Write(String, String),
    /// `shell_exec sh run_tests.sh`.
    Test,
    /// The turn's final answer.
    Answer(String),
}

/// A scripted session of a given number of model rounds.
#[derive(Debug)]
pub struct LongSession {
    turns: Vec<usize>,
    /// (turn, round within it) of the next turn request.
    next: Mutex<(usize, usize)>,
    /// Summary requests answered.
    summaries: Mutex<usize>,
}

impl LongSession {
    /// A session of exactly `rounds` model rounds.
    pub fn new(rounds: usize) -> LongSession {
        let mut turns = Vec::new();
        let mut left = rounds;
        for len in TURN_LENGTHS.iter().cycle() {
            if left == 0 {
                break;
            }
            let n = (*len).min(left);
            turns.push(n);
            left -= n;
        }
        LongSession {
            turns,
            next: Mutex::new((0, 0)),
            summaries: Mutex::new(0),
        }
    }

    /// How many turns (user messages) it has.
    pub fn turns(&self) -> usize {
        self.turns.len()
    }

    /// How many summary requests it answered.
    pub fn summaries(&self) -> usize {
        *self.summaries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The user's message opening `turn`.
    pub fn prompt(&self, turn: usize) -> String {
        format!(
            "Task {turn}: look at the module f{}.txt and its neighbours, fix what is wrong, and \
             run the tests.",
            (turn * 3) % FILES
        )
    }

    /// Writes the files the session reads and its test script.
    pub fn prepare(&self, workspace: &Path) -> std::io::Result<()> {
        for n in 0..FILES {
            let size = 2048 + (n * 1531) % 9000;
            let mut text = String::new();
            let mut k = 0;
            while text.len() < size {
                text.push_str(&format!(
                    "file {n} line {k}: fn item_{k}() -> u32 {{ {k} * {n} }} // unchanged\n"
                ));
                k += 1;
            }
            std::fs::write(workspace.join(format!("f{n}.txt")), text)?;
        }
        let mut script = String::from("#!/bin/sh\n");
        for t in 0..40 {
            script.push_str(&format!("echo 'test tests::case_{t} ... ok'\n"));
        }
        script.push_str("echo 'test result: ok. 40 passed; 0 failed'\n");
        std::fs::write(workspace.join(TEST_SCRIPT), script)
    }

    /// Round `r` of a turn of `len` rounds: reads first, then edits, one
    /// test run, a last look, and the answer.
    pub fn step(turn: usize, r: usize, len: usize) -> SessionStep {
        if r + 1 == len {
            return SessionStep::Answer(format!(
                "Turn {turn} is done: I read the modules, changed what was wrong and the tests \
                 pass. {}",
                "Details follow. ".repeat(12)
            ));
        }
        let reads = (len * 45) / 100;
        let edits = (len * 30) / 100;
        if r < reads {
            SessionStep::Read(format!("f{}.txt", (turn * 3 + r) % FILES))
        } else if r < reads + edits {
            let body = format!("// turn {turn} edit {r}\n").repeat(60);
            SessionStep::Write(format!("out/t{turn}_{r}.txt"), body)
        } else if r == reads + edits {
            SessionStep::Test
        } else {
            SessionStep::Read(format!("f{}.txt", (turn + r) % FILES))
        }
    }

    /// The reply to `req`: a summary for a summary request, otherwise the
    /// session's next step.
    pub fn reply(&self, req: &RecordedRequest) -> Reply {
        if req.kind == RequestKind::Summary {
            let mut n = self.summaries.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            let text = format!(
                "SUMMARY {n}: the user asked for fixes across the f*.txt modules; files were \
                 read, out/ files written, and the tests pass. {}",
                "Open items are listed in the tail. ".repeat(20)
            );
            return ChatStream::new().text(&text).stop().reply().for_summary();
        }
        let (turn, r) = {
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let here = *next;
            let len = self.turns.get(here.0).copied().unwrap_or(1);
            *next = if here.1 + 1 >= len {
                (here.0 + 1, 0)
            } else {
                (here.0, here.1 + 1)
            };
            here
        };
        let len = self.turns.get(turn).copied().unwrap_or(1);
        let id = format!("call_{turn}_{r}");
        let args = |v: serde_json::Value| v.to_string();
        match Self::step(turn, r, len) {
            SessionStep::Answer(text) => ChatStream::new().text(&text).stop().reply(),
            SessionStep::Read(path) => ChatStream::new()
                .text("Reading.")
                .tool_call(&id, "fs_read", &args(serde_json::json!({ "path": path })))
                .tool_calls()
                .reply(),
            SessionStep::Write(path, content) => ChatStream::new()
                .text("Editing.")
                .tool_call(
                    &id,
                    "fs_write",
                    &args(serde_json::json!({
                        "path": path,
                        "content": content,
                        "expected_revision": "absent",
                    })),
                )
                .tool_calls()
                .reply(),
            SessionStep::Test => ChatStream::new()
                .text("Running the tests.")
                .tool_call(
                    &id,
                    "shell_exec",
                    &args(serde_json::json!({ "command": format!("sh {TEST_SCRIPT}") })),
                )
                .tool_calls()
                .reply(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_add_up_to_the_rounds_and_each_has_a_test_run() {
        let s = LongSession::new(200);
        let lens = s.turns;
        assert_eq!(lens.iter().sum::<usize>(), 200);
        for (t, len) in lens.iter().enumerate().filter(|(_, l)| **l >= 7) {
            let steps: Vec<_> = (0..*len).map(|r| LongSession::step(t, r, *len)).collect();
            assert!(steps.contains(&SessionStep::Test));
            assert!(matches!(steps.last(), Some(SessionStep::Answer(_))));
        }
    }
}
