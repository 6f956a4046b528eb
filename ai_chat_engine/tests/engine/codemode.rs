//! `run_code`: a scripted model writes a program, a real `node` runs it
//! in koi's sandbox, and each call it makes goes through the engine's
//! gate and into the session log like a direct call.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_chat_engine::store::session_log::{read_log, Entry};
use ai_chat_engine::{ApprovalReply, Conversation, Engine, Event, Message, UserInput};
use ai_tools::sandbox::{support, Support};
use ai_tools::tools::run_code::runtime::Runtimes;
use ai_tools::{Registry, RegistryConfig, Workspace};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::skip::{skip, PROGRAMS, SANDBOX};
use koi_testkit::{FakeProvider, Reply};

use crate::common::*;

/// The runtimes on PATH and an active sandbox, or `None` after recording
/// why `test` cannot run here.
fn ready(test: &str) -> Option<Runtimes> {
    let runtimes = node(test)?;
    if let Support::Unavailable(why) = support() {
        skip(
            SANDBOX,
            test,
            &format!("no usable sandbox on this kernel: {why}"),
        );
        return None;
    }
    Some(runtimes)
}

/// The runtimes on PATH, or `None` after recording that `test` cannot
/// run here.
fn node(test: &str) -> Option<Runtimes> {
    let runtimes = Runtimes::detect().filter(|r| r.javascript.is_some());
    if runtimes.is_none() {
        skip(PROGRAMS, test, "no node (or deno) on PATH for run_code");
    }
    runtimes
}

/// An engine whose registry declares `run_code`.
fn code_harness(server: &FakeProvider, runtimes: Runtimes) -> Harness {
    code_harness_with(server, runtimes, None)
}

/// [`code_harness`] on a kernel taken to offer `support`.
fn code_harness_with(
    server: &FakeProvider,
    runtimes: Runtimes,
    support: Option<Support>,
) -> Harness {
    let workspace = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let opts = options(data.path(), config_dir.path());
    let mut config = RegistryConfig::new(Workspace::new(workspace.path()).unwrap());
    config.code_runtimes = Some(runtimes);
    let mut registry = Registry::standard(config);
    if let Some(support) = support {
        registry = registry.with_sandbox_support(support);
    }
    let registry = Arc::new(registry);
    let cfg = crate::common::config(server, ai_chat_engine::ProviderKind::OpenAi);
    let engine = Engine::new(cfg, registry, opts).unwrap();
    Harness {
        engine,
        workspace,
        data,
        _config_dir: config_dir,
    }
}

/// The model's round: one `run_code` call with `code`.
fn program_round(code: &str, timeout_secs: Option<f64>) -> Reply {
    let mut args = serde_json::json!({"language": "javascript", "code": code});
    if let Some(t) = timeout_secs {
        args["timeout_secs"] = t.into();
    }
    ChatStream::new()
        .tool_call("c1", "run_code", &args.to_string())
        .tool_calls()
        .reply()
}

fn final_round() -> Reply {
    ChatStream::new().text("Summarised.").stop().reply()
}

/// Runs a turn, answering each approval with the next of `answers`;
/// returns the messages and how many approvals were asked.
fn turn(
    engine: &Engine,
    conv: &Conversation,
    text: &str,
    answers: &[ApprovalReply],
) -> (Vec<Event>, Vec<String>) {
    let (rx, handle) = engine.submit(conv, UserInput::text(text));
    let mut msgs = Vec::new();
    let mut asked = Vec::new();
    loop {
        let m = rx.recv_timeout(TURN_TIMEOUT).unwrap();
        if let Event::ApprovalAsked {
            id: Some(id),
            summary,
            ..
        } = &m
        {
            let answer = answers
                .get(asked.len())
                .copied()
                .unwrap_or(ApprovalReply::Deny);
            asked.push(summary.clone());
            handle.approve(id, answer);
        }
        let end = m.is_terminal();
        msgs.push(m);
        if end {
            break;
        }
    }
    (msgs, asked)
}

/// The one tool result in history: the program's report.
fn program_result(conv: &Conversation) -> String {
    let results: Vec<String> = conv
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    results[0].clone()
}

/// Each call the program made, from the log: (id, tool, started, error).
fn logged_calls(path: &Path) -> Vec<(String, String, bool, bool)> {
    let log = read_log(path).unwrap();
    let started: Vec<String> = log
        .records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::ToolStart { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    log.records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::CodeCallResult {
                parent,
                call_id,
                name,
                is_error,
                ..
            } => {
                assert_eq!(parent, "c1");
                Some((
                    call_id.clone(),
                    name.clone(),
                    started.contains(call_id),
                    *is_error,
                ))
            }
            _ => None,
        })
        .collect()
}

const TWENTY_READS: &str = r#"
const paths = Array.from({ length: 20 }, (_, i) => `notes/n${String(i).padStart(2, "0")}.txt`);
const texts = await Promise.all(paths.map((path) => koi.fs_read({ path })));
const marked = texts.filter((t) => /TOPIC-\d+/.test(t)).length;
const hits = await koi.grep_search({ pattern: "TOPIC-7\\b" });
console.log(`read ${texts.length} files, ${marked} marked`);
console.log(`grep found n07: ${hits.includes("n07.txt")}`);
"#;

#[test]
fn twenty_reads_and_a_grep_take_one_round_and_ask_nothing() {
    let Some(runtimes) = ready("twenty_reads_and_a_grep_take_one_round_and_ask_nothing") else {
        return;
    };
    let server = FakeProvider::start([program_round(TWENTY_READS, None), final_round()]);
    let h = code_harness(&server, runtimes);
    std::fs::create_dir(h.ws().join("notes")).unwrap();
    for i in 0..20 {
        let body = format!("note {i}\nTOPIC-{i} is about part {i}\n");
        std::fs::write(h.ws().join(format!("notes/n{i:02}.txt")), body).unwrap();
    }
    let conv = h.engine.new_conversation();
    let (msgs, asked) = turn(&h.engine, &conv, "summarise the notes", &[]);
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(asked.is_empty(), "asked: {asked:?}");
    // One round wrote the program; the next one answers.
    assert_eq!(server.request_count(), 2);

    let result = program_result(&conv);
    assert!(result.contains("read 20 files, 20 marked"), "{result}");
    assert!(result.contains("grep found n07: true"), "{result}");
    assert!(result.contains("21 tool calls"), "{result}");
    // The files' bodies stayed in the program: only its output came back.
    assert!(!result.contains("is about part"), "{result}");
    let second = server.requests()[1].body_str();
    assert!(!second.contains("is about part"));

    let calls = logged_calls(&conv.log_path().unwrap());
    let reads = calls.iter().filter(|c| c.1 == "fs_read").count();
    assert_eq!(reads, 20, "{calls:?}");
    assert_eq!(calls.iter().filter(|c| c.1 == "grep_search").count(), 1);
    assert!(calls.iter().all(|c| c.2 && !c.3), "{calls:?}");
    let ids: std::collections::HashSet<_> = calls.iter().map(|c| c.0.clone()).collect();
    assert_eq!(ids.len(), 21);
    // Each inner call was shown like a direct one.
    let done = count(
        &msgs,
        |m| matches!(m, Event::ToolDone { id, .. } if id.starts_with("c1.")),
    );
    assert_eq!(done, 21);
    // A resumed conversation has the same history (the program's calls
    // are in the log, not in what the model sees) and nothing to recover.
    let (id, history) = (conv.id(), conv.messages());
    drop(conv);
    let resumed = load_when_free(&h.engine, &id);
    assert_eq!(resumed.messages(), history);
    assert!(matches!(resumed.next_step(), ai_chat_engine::Step::Idle));
}

const TWO_WRITES: &str = r#"
const a = await koi.fs_write({ path: "a.txt", content: "A\n", expected_revision: "absent" });
const b = await koi.fs_write({ path: "b.txt", content: "B\n", expected_revision: "absent" });
console.log("A=> " + a.split("\n")[0]);
console.log("B=> " + b.split("\n")[0]);
"#;

#[test]
fn each_write_asks_and_a_denied_one_gets_the_refusal() {
    let Some(runtimes) = ready("each_write_asks_and_a_denied_one_gets_the_refusal") else {
        return;
    };
    let server = FakeProvider::start([program_round(TWO_WRITES, None), final_round()]);
    let h = code_harness(&server, runtimes);
    let conv = h.engine.new_conversation();
    let answers = [ApprovalReply::Approve, ApprovalReply::Deny];
    let (msgs, asked) = turn(&h.engine, &conv, "write two files", &answers);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        asked[0].contains("a.txt") && asked[1].contains("b.txt"),
        "{asked:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.ws().join("a.txt")).unwrap(),
        "A\n"
    );
    assert!(!h.ws().join("b.txt").exists());

    let result = program_result(&conv);
    assert!(result.contains("B=> denied: the user declined"), "{result}");
    assert!(!result.contains("A=> denied"), "{result}");
    let path = conv.log_path().unwrap();
    let calls = logged_calls(&path);
    assert_eq!(calls.len(), 2);
    assert!(calls[0].2 && !calls[0].3, "{calls:?}");
    // The denied call never started.
    assert!(!calls[1].2 && calls[1].3, "{calls:?}");
    let log = read_log(&path).unwrap();
    let decided: Vec<bool> = log
        .records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::ApprovalDecided { approved, .. } => Some(*approved),
            _ => None,
        })
        .collect();
    assert_eq!(decided, vec![true, false]);
}

#[test]
fn a_program_that_loops_forever_stops_at_its_time_limit() {
    let Some(runtimes) = ready("a_program_that_loops_forever_stops_at_its_time_limit") else {
        return;
    };
    let title = format!("koi-spin-{}", std::process::id());
    let code = format!("process.title = {title:?}; console.log('spinning'); while (true) {{}}");
    let server = FakeProvider::start([program_round(&code, Some(2.0)), final_round()]);
    let h = code_harness(&server, runtimes);
    let conv = h.engine.new_conversation();
    let began = Instant::now();
    let (msgs, asked) = turn(&h.engine, &conv, "spin", &[]);
    let took = began.elapsed();
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(asked.is_empty());
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    let result = program_result(&conv);
    assert!(result.contains("ran past its time limit of 2s"), "{result}");
    assert!(result.contains("spinning"), "{result}");
    // Killed with its group: no process of it is left.
    assert_eq!(processes_titled(&title), 0);
}

/// Processes whose command line starts with `title`.
fn processes_titled(title: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmdline| cmdline.starts_with(title.as_bytes()))
        .count()
}

#[test]
fn a_program_reaches_no_network_and_no_hidden_path() {
    let Some(runtimes) = ready("a_program_reaches_no_network_and_no_hidden_path") else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        r#"
const net = require("net");
const fs = require("fs");
const reached = await new Promise((done) => {{
  const s = net.connect({port}, "127.0.0.1");
  s.on("connect", () => {{ s.end(); done("connected"); }});
  s.on("error", (e) => done("failed " + e.code));
}});
console.log("net: " + reached);
let secret;
try {{ secret = "read [" + fs.readFileSync(".env", "utf8") + "]"; }} catch (e) {{ secret = "failed " + e.code; }}
console.log("env: " + secret);
let wrote;
try {{ fs.writeFileSync("planted.txt", "x"); wrote = "wrote"; }} catch (e) {{ wrote = "failed " + e.code; }}
console.log("write: " + wrote);
"#
    );
    let server = FakeProvider::start([program_round(&code, None), final_round()]);
    let h = code_harness(&server, runtimes);
    std::fs::write(h.ws().join(".env"), "API_TOKEN=HIDDEN-VALUE-42\n").unwrap();
    let conv = h.engine.new_conversation();
    let (msgs, asked) = turn(&h.engine, &conv, "probe", &[]);
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(asked.is_empty(), "{asked:?}");
    let result = program_result(&conv);
    assert!(result.contains("net: failed"), "{result}");
    assert!(!result.contains("HIDDEN-VALUE-42"), "{result}");
    assert!(result.contains("env: "), "{result}");
    assert!(result.contains("write: failed"), "{result}");
    assert!(!h.ws().join("planted.txt").exists());
    // Nothing reached the listener.
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err());
}

/// Where `scripts/deps` installs tsx (`koi_install_code_runtimes`).
fn tsx_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/codemode/node_modules/.bin")
}

const TYPED: &str = r#"
interface Note { path: string; text: string }
const paths: string[] = ["a.ts.txt", "b.ts.txt"];
const notes: Note[] = await Promise.all(
  paths.map(async (path: string): Promise<Note> => ({ path, text: await koi.fs_read({ path }) })),
);
const marked: number = notes.filter((n: Note) => n.text.includes("TYPED-MARK")).length;
console.log(`typed: ${marked} of ${notes.length}`);
"#;

#[test]
fn a_typescript_program_runs_with_types_stripped() {
    let test = "a_typescript_program_runs_with_types_stripped";
    if ready(test).is_none() {
        return;
    }
    // Node strips types itself from 22.6; an older one needs tsx (or deno).
    let mut dirs = vec![tsx_dir()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    let Some(runtimes) = Runtimes::detect_in(&dirs).filter(|r| r.typescript.is_some()) else {
        skip(
            PROGRAMS,
            test,
            "no TypeScript runtime: run `source scripts/deps && koi_install_code_runtimes`",
        );
        return;
    };
    let args = serde_json::json!({"language": "typescript", "code": TYPED});
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c1", "run_code", &args.to_string())
            .tool_calls()
            .reply(),
        final_round(),
    ]);
    let h = code_harness(&server, runtimes);
    for name in ["a.ts.txt", "b.ts.txt"] {
        std::fs::write(h.ws().join(name), "TYPED-MARK\n").unwrap();
    }
    let conv = h.engine.new_conversation();
    let (msgs, asked) = turn(&h.engine, &conv, "read them, typed", &[]);
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(asked.is_empty(), "{asked:?}");
    let result = program_result(&conv);
    assert!(result.contains("typed: 2 of 2"), "{result}");
    assert_eq!(logged_calls(&conv.log_path().unwrap()).len(), 2);
}

#[test]
fn without_a_sandbox_the_program_itself_is_asked_about() {
    let Some(runtimes) = node("without_a_sandbox_the_program_itself_is_asked_about") else {
        return;
    };
    let code = "console.log('ran: ' + (await koi.fs_read({ path: 'n.txt' })).includes('NOTE'));";
    let server = FakeProvider::start([
        program_round(code, None),
        final_round(),
        program_round(code, None),
        final_round(),
    ]);
    let unavailable = Support::Unavailable("pinned off for this test".into());
    let h = code_harness_with(&server, runtimes, Some(unavailable));
    std::fs::write(h.ws().join("n.txt"), "NOTE\n").unwrap();

    // Declined: nothing ran, and the model is told.
    let conv = h.engine.new_conversation();
    let (msgs, asked) = turn(&h.engine, &conv, "read it", &[ApprovalReply::Deny]);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("node program.js"), "{asked:?}");
    let result = program_result(&conv);
    assert!(result.contains("declined"), "{result}");
    assert!(logged_calls(&conv.log_path().unwrap()).is_empty());

    // Approved: it runs, and its read (proven read-only) is not asked.
    let conv = h.engine.new_conversation();
    let (msgs, asked) = turn(&h.engine, &conv, "read it", &[ApprovalReply::Approve]);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(asked.len(), 1, "{asked:?}");
    let result = program_result(&conv);
    assert!(result.contains("ran: true"), "{result}");
    assert_eq!(logged_calls(&conv.log_path().unwrap()).len(), 1);
}
