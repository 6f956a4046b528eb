//! Phase boundaries: the moments a human engineer would stop to take
//! notes (tests just ran, a run of edits ended, an investigation turned
//! into edits, the user's turn ended). A summary written there loses the
//! least, because the work in flight is at a natural rest.

use serde::{Deserialize, Serialize};

use crate::message::{Message, ToolCall};

/// Read-only rounds in a row that make an investigation: fewer is a
/// glance before an edit, not a phase of its own.
const INVESTIGATION_ROUNDS: usize = 3;

/// What one tool call does, for finding boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Reads files, lists, searches.
    Read,
    /// Creates, changes or deletes files.
    Edit,
    /// Runs a test suite (or a check such as `make check`).
    Test,
    /// Anything else (other commands, the network, polling).
    Other,
}

/// A phase boundary the history just crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Boundary {
    /// A test run's result just came back.
    TestsRan,
    /// A round without edits followed a round of edits.
    EditsEnded,
    /// Edits began after a read-only investigation.
    InvestigationEnded,
    /// The previous turn ended; a new one begins.
    TurnEnded,
}

impl std::fmt::Display for Boundary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Boundary::TestsRan => "tests just ran",
            Boundary::EditsEnded => "a run of edits ended",
            Boundary::InvestigationEnded => "an investigation turned into edits",
            Boundary::TurnEnded => "the turn ended",
        })
    }
}

/// What a round of calls did, as a set.
#[derive(Debug, Clone, Copy, Default)]
struct RoundKind {
    edit: bool,
    test: bool,
    only_reads: bool,
}

fn round_kind(calls: &[ToolCall], classify: &dyn Fn(&ToolCall) -> Activity) -> RoundKind {
    let acts: Vec<Activity> = calls.iter().map(classify).collect();
    RoundKind {
        edit: acts.contains(&Activity::Edit),
        test: acts.contains(&Activity::Test),
        only_reads: acts.iter().all(|a| *a == Activity::Read),
    }
}

/// The boundary the end of `messages` sits on, if any.
pub fn boundary(
    messages: &[Message],
    classify: &dyn Fn(&ToolCall) -> Activity,
) -> Option<Boundary> {
    let last = messages
        .iter()
        .rev()
        .find(|m| !matches!(m, Message::Notice(_)))?;
    if matches!(last, Message::User { .. }) {
        let answered_before = messages
            .iter()
            .any(|m| matches!(m, Message::Assistant { .. }));
        return answered_before.then_some(Boundary::TurnEnded);
    }
    if !matches!(last, Message::ToolResult { .. }) {
        return None;
    }
    let rounds: Vec<RoundKind> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                Some(round_kind(tool_calls, classify))
            }
            _ => None,
        })
        .collect();
    let (latest, earlier) = rounds.split_last()?;
    if latest.test {
        return Some(Boundary::TestsRan);
    }
    let previous = earlier.last();
    if !latest.edit && previous.is_some_and(|p| p.edit) {
        return Some(Boundary::EditsEnded);
    }
    let investigated = earlier.len() >= INVESTIGATION_ROUNDS
        && earlier
            .iter()
            .rev()
            .take(INVESTIGATION_ROUNDS)
            .all(|r| r.only_reads);
    (latest.edit && investigated).then_some(Boundary::InvestigationEnded)
}

/// Programs that are test runners whatever their arguments.
const TEST_RUNNERS: [&str; 12] = [
    "pytest", "py.test", "jest", "vitest", "mocha", "ctest", "tox", "nox", "rspec", "phpunit",
    "nextest", "bats",
];

/// Build tools whose subcommand (any later word) names a test run.
const TEST_SUBCOMMAND_TOOLS: [&str; 14] = [
    "cargo", "go", "npm", "yarn", "pnpm", "bun", "make", "just", "mvn", "gradle", "gradlew",
    "dotnet", "mix", "deno",
];

/// Subcommands that mean "run the tests".
const TEST_WORDS: [&str; 5] = ["test", "tests", "check", "nextest", "t"];

/// Shells that run a script named as their first argument.
const SHELLS: [&str; 4] = ["sh", "bash", "zsh", "dash"];

/// Words that run the rest of the line as a command.
const WRAPPERS: [&str; 6] = ["time", "nice", "env", "timeout", "nohup", "command"];

/// Whether a shell command line runs tests: any of its simple commands
/// is a test runner, a build tool's test subcommand, `python -m pytest`
/// or `unittest`, or a script whose name says test.
pub fn looks_like_tests(command: &str) -> bool {
    command
        .split(['&', '|', ';', '\n', '(', ')'])
        .any(simple_command_tests)
}

fn simple_command_tests(segment: &str) -> bool {
    let words: Vec<&str> = segment
        .split_whitespace()
        .skip_while(|w| w.contains('=') || WRAPPERS.contains(w) || w.starts_with('-'))
        .collect();
    let Some((mut program, mut args)) = words.split_first() else {
        return false;
    };
    let base_of = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    // `sh run_tests.sh`: the script is the program.
    if SHELLS.contains(&base_of(program).as_str()) {
        match args.split_first() {
            Some((script, rest)) if !script.starts_with('-') => (program, args) = (script, rest),
            _ => return false,
        }
    }
    let base = base_of(program);
    let base = base.as_str();
    if TEST_RUNNERS.contains(&base) {
        return true;
    }
    if TEST_SUBCOMMAND_TOOLS.contains(&base) {
        return args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .take(2)
            .any(|a| TEST_WORDS.contains(a));
    }
    if base.starts_with("python") {
        return args
            .windows(2)
            .any(|w| w[0] == "-m" && (w[1] == "pytest" || w[1] == "unittest"));
    }
    base.contains("test")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str) -> ToolCall {
        ToolCall {
            id: format!("c-{name}"),
            name: name.into(),
            arguments: "{}".into(),
        }
    }

    fn classify(c: &ToolCall) -> Activity {
        match c.name.as_str() {
            "read" => Activity::Read,
            "edit" => Activity::Edit,
            "test" => Activity::Test,
            _ => Activity::Other,
        }
    }

    fn history(rounds: &[&[&str]]) -> Vec<Message> {
        let mut out = vec![Message::User {
            text: "go".into(),
            attachments: vec![],
            images: vec![],
        }];
        for names in rounds {
            let calls: Vec<ToolCall> = names.iter().map(|n| call(n)).collect();
            out.push(Message::Assistant {
                text: String::new(),
                tool_calls: calls.clone(),
                reasoning_blocks: vec![],
            });
            for c in calls {
                out.push(Message::ToolResult {
                    call_id: c.id,
                    name: c.name,
                    content: "ok".into(),
                    is_error: false,
                });
            }
        }
        out
    }

    #[test]
    fn boundaries_are_found_where_the_work_changes() {
        let b = |r: &[&[&str]]| boundary(&history(r), &classify);
        assert_eq!(b(&[&["read"], &["test"]]), Some(Boundary::TestsRan));
        assert_eq!(b(&[&["edit"], &["edit", "read"]]), None);
        assert_eq!(b(&[&["edit"], &["read"]]), Some(Boundary::EditsEnded));
        assert_eq!(
            b(&[&["read"], &["read"], &["read"], &["edit"]]),
            Some(Boundary::InvestigationEnded)
        );
        assert_eq!(b(&[&["read"], &["other"], &["read"], &["edit"]]), None);
        assert_eq!(b(&[&["read"], &["read"]]), None);
        let mut h = history(&[&["read"]]);
        h.push(Message::Assistant {
            text: "done".into(),
            tool_calls: vec![],
            reasoning_blocks: vec![],
        });
        assert_eq!(boundary(&h, &classify), None);
        h.push(Message::User {
            text: "next".into(),
            attachments: vec![],
            images: vec![],
        });
        h.push(Message::Notice("env changed".into()));
        assert_eq!(boundary(&h, &classify), Some(Boundary::TurnEnded));
        // The first message of a conversation ends no turn.
        assert_eq!(boundary(&history(&[]), &classify), None);
    }

    #[test]
    fn commands_are_recognised() {
        for yes in [
            "cargo test -p foo",
            "cd x && cargo nextest run",
            "RUST_LOG=1 cargo test",
            "npm test",
            "npm run test",
            "go test ./...",
            "make check",
            "python3 -m pytest -q",
            "pytest tests/",
            "./scripts/test",
            "sh run_tests.sh",
            "time ./run-tests.sh",
        ] {
            assert!(looks_like_tests(yes), "{yes}");
        }
        for no in [
            "cargo build",
            "ls tests",
            "grep -r test .",
            "cat test.txt",
            "git log",
            "npm install",
        ] {
            assert!(!looks_like_tests(no), "{no}");
        }
    }
}
