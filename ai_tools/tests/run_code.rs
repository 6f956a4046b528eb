//! `run_code`'s wire with a real `node`: the prelude's `koi`, answers
//! matched to calls by id when many are in flight, a program that throws,
//! and a program with no engine behind it. The engine's own gate is
//! tested in `ai_chat_engine`'s `codemode` tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use ai_tools::tools::run_code::runtime::Runtimes;
use ai_tools::{
    Bridge, BridgeAnswer, CallBridge, CancelToken, Mode, ProgressSink, Registry, RegistryConfig,
    ToolOutput, Workspace,
};
use koi_testkit::skip::{skip, PROGRAMS};
use serde_json::json;

/// Answers every call with its tool and arguments, and keeps them.
#[derive(Default)]
struct Echo {
    seen: Mutex<Vec<(String, serde_json::Value)>>,
}

impl Bridge for Echo {
    fn names(&self) -> Vec<String> {
        vec!["fs_read".into(), "mcp__srv__odd-name".into()]
    }

    fn call(&self, tool: &str, args: serde_json::Value) -> BridgeAnswer {
        self.seen
            .lock()
            .unwrap()
            .push((tool.to_string(), args.clone()));
        BridgeAnswer {
            text: format!("{tool}:{}", args["n"]),
            is_error: false,
        }
    }
}

fn registry(test: &str, ws: &std::path::Path) -> Option<Registry> {
    let Some(runtimes) = Runtimes::detect().filter(|r| r.javascript.is_some()) else {
        skip(PROGRAMS, test, "no node (or deno) on PATH for run_code");
        return None;
    };
    let mut config = RegistryConfig::new(Workspace::new(ws).unwrap());
    config.code_runtimes = Some(runtimes);
    Some(Registry::standard(config))
}

fn run(registry: &Registry, code: &str, bridge: CallBridge) -> ToolOutput {
    let args = json!({"language": "javascript", "code": code});
    let judged = registry.judge("run_code", &args, Mode::Bypass).unwrap();
    let approved = judged.approve().unwrap();
    registry
        .run_bridged(
            "run_code",
            &args,
            &approved,
            &CancelToken::new(),
            ai_tools::run_tag::RunTag::new(),
            ProgressSink::default(),
            bridge,
        )
        .unwrap()
}

#[test]
fn answers_find_their_calls_when_many_are_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let Some(registry) = registry(
        "answers_find_their_calls_when_many_are_in_flight",
        dir.path(),
    ) else {
        return;
    };
    let echo = Arc::new(Echo::default());
    let code = r#"
const got = await Promise.all(Array.from({ length: 50 }, (_, n) => koi.fs_read({ n })));
const odd = await koi["mcp__srv__odd-name"]({ n: -1 });
const named = await koi.call("fs_read", { n: 99 });
const right = got.every((text, n) => text === `fs_read:${n}`);
process.stdout.write("partial line ");
console.log(`right=${right} odd=${odd} named=${named} tools=${Object.keys(koi).sort().join(",")}`);
"#;
    let out = run(&registry, code, CallBridge::new(echo.clone()));
    assert!(
        out.for_model.contains(
            "partial line right=true odd=mcp__srv__odd-name:-1 named=fs_read:99 \
             tools=call,fs_read,mcp__srv__odd-name"
        ),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.starts_with("exit 0 · 52 tool calls"),
        "{}",
        out.for_model
    );
    assert_eq!(echo.seen.lock().unwrap().len(), 52);
}

#[test]
fn a_program_that_throws_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let Some(registry) = registry("a_program_that_throws_says_why", dir.path()) else {
        return;
    };
    let out = run(
        &registry,
        "console.log('before');\nthrow new Error('THROWN-HERE');",
        CallBridge::default(),
    );
    assert!(out.for_model.starts_with("exit 1"), "{}", out.for_model);
    assert!(out.for_model.contains("before"), "{}", out.for_model);
    assert!(out.for_model.contains("[stderr]"), "{}", out.for_model);
    assert!(out.for_model.contains("THROWN-HERE"), "{}", out.for_model);
}

#[test]
fn without_an_engine_every_call_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let Some(registry) = registry("without_an_engine_every_call_is_refused", dir.path()) else {
        return;
    };
    let out = run(
        &registry,
        "console.log('got: ' + await koi.call('fs_read', { path: 'x' }));",
        CallBridge::default(),
    );
    assert!(
        out.for_model
            .contains(&format!("got: {}", ai_tools::bridge::NO_BRIDGE)),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.contains("1 refused or failed"),
        "{}",
        out.for_model
    );
}

/// Answers every call with 100,000 characters.
struct Big;

impl Bridge for Big {
    fn names(&self) -> Vec<String> {
        vec!["fs_read".into()]
    }

    fn call(&self, _tool: &str, _args: serde_json::Value) -> BridgeAnswer {
        BridgeAnswer {
            text: "z".repeat(100_000),
            is_error: false,
        }
    }
}

#[test]
fn results_and_output_past_the_budget_stop_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let test = "results_and_output_past_the_budget_stop_the_program";
    let Some(registry) = registry(test, dir.path()) else {
        return;
    };
    // Each round trip brings 100,000 characters in and prints 10,000.
    let code = "for (;;) { const t = await koi.fs_read({}); console.log(t.slice(0, 10000)); }";
    let out = run(&registry, code, CallBridge::new(Arc::new(Big)));
    let calls = ai_tools::tools::run_code::program::CODE_BUDGET / 110_000;
    assert!(
        out.for_model
            .starts_with("stopped: its output and its calls' results passed"),
        "{}",
        &out.for_model[..200.min(out.for_model.len())]
    );
    let header = out.for_model.lines().next().unwrap();
    let made: usize = header
        .split(" · ")
        .nth(1)
        .and_then(|c| c.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((calls..=calls + 2).contains(&made), "{header}");
    // What the model reads stays within the tool's budget.
    assert!(out.for_model.chars().count() <= 17_000);
}

#[test]
fn a_program_that_prints_much_and_ends_loses_none_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let test = "a_program_that_prints_much_and_ends_loses_none_of_it";
    let Some(registry) = registry(test, dir.path()) else {
        return;
    };
    let code =
        "for (let i = 0; i < 100; i++) console.log('y'.repeat(10000));\nconsole.log('THE-END');";
    let out = run(&registry, code, CallBridge::default());
    assert!(
        out.for_model.starts_with("exit 0"),
        "{}",
        &out.for_model[..100]
    );
    assert!(out.for_model.contains("THE-END"));
    let ys = out.full.chars().filter(|&c| c == 'y').count();
    assert_eq!(ys, 1_000_000);
}
