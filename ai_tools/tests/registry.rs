//! The registry's engine-facing surface: specs, modes, footprints for
//! parallelism, approval summaries, and the floor re-checked at run time.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::sandbox::{Isolation, Support};
use ai_tools::{
    CancelToken, Decision, Footprint, Mode, Registry, RegistryConfig, ToolError, Workspace,
};
use serde_json::json;

/// A registry where no sandbox exists, so the proof alone decides (what
/// the sandbox adds is `confidential.rs`'s and `everyday.rs`'s subject).
fn registry() -> (tempfile::TempDir, Registry) {
    registry_with(Support::Unavailable("pinned by the test".into()))
}

fn registry_with(support: Support) -> (tempfile::TempDir, Registry) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let reg = Registry::standard(RegistryConfig::new(ws)).with_sandbox_support(support);
    (dir, reg)
}

#[test]
fn specs_are_complete_and_unique() {
    let (_dir, reg) = registry();
    let specs = reg.specs();
    let mut names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    for expected in [
        "fs_read",
        "fs_list",
        "file_tree",
        "project_summary",
        "grep_search",
        "fs_write",
        "fs_patch",
        "fs_delete",
        "shell_exec",
        "shell_bg",
        "shell_poll",
        "shell_kill",
        "web_fetch",
        "http_request",
        "memory_read",
    ] {
        assert!(names.contains(&expected), "{expected} missing");
        assert!(reg.get(expected).is_some());
    }
    for s in &specs {
        assert_eq!(s.input_schema["type"], "object", "{}", s.name);
        assert!(!s.description.is_empty());
        serde_json::to_string(s).unwrap();
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), specs.len());
    assert!(reg.get("bash").is_none());
}

#[test]
fn modes_parse_and_display() {
    for m in Mode::ALL {
        assert_eq!(m.to_string().parse::<Mode>().unwrap(), m);
    }
    assert_eq!("accept_edits".parse::<Mode>().unwrap(), Mode::AcceptEdits);
    assert_eq!(" Dont-Ask ".parse::<Mode>().unwrap(), Mode::DontAsk);
    let err = "yolo".parse::<Mode>().unwrap_err();
    assert!(err
        .to_string()
        .contains("default, accept-edits, plan, dont-ask, bypass"));
}

#[test]
fn footprints_let_independent_calls_run_in_parallel() {
    let (_dir, reg) = registry();
    let fp = |name: &str, args: serde_json::Value| reg.footprint(name, &args);
    let read_a = fp("fs_read", json!({"path": "a.txt"}));
    let read_b = fp("fs_read", json!({"path": "b.txt"}));
    let write_a = fp(
        "fs_write",
        json!({"path": "a.txt", "content": "", "expected_revision": "absent"}),
    );
    let write_b = fp(
        "fs_write",
        json!({"path": "b.txt", "content": "", "expected_revision": "absent"}),
    );
    let grep_all = fp("grep_search", json!({"pattern": "x"}));
    let ls = fp("shell_exec", json!({"command": "ls -la"}));
    let make = fp("shell_exec", json!({"command": "make"}));
    let get = fp("web_fetch", json!({"url": "https://example.com"}));
    let post = fp(
        "http_request",
        json!({"method": "POST", "url": "https://example.com"}),
    );
    let bad = fp("fs_read", json!({}));
    assert!(!read_a.conflicts_with(&read_b));
    assert!(!read_a.conflicts_with(&grep_all));
    assert!(read_a.conflicts_with(&write_a));
    assert!(!write_a.conflicts_with(&write_b));
    assert!(
        grep_all.conflicts_with(&write_b),
        "a tree read conflicts with a write inside it"
    );
    assert!(!ls.conflicts_with(&read_a));
    assert!(ls.conflicts_with(&write_a));
    assert_eq!(make, Footprint::Exclusive);
    assert!(make.conflicts_with(&read_a) && make.conflicts_with(&get));
    assert!(!get.conflicts_with(&get.clone()));
    assert!(post.conflicts_with(&get));
    assert!(!get.conflicts_with(&read_a));
    assert_eq!(bad, Footprint::Exclusive);
    assert!(read_a.is_read_only() && get.is_read_only() && !write_a.is_read_only());
    // Contained, an unproven command only reads: beside other reads, never
    // beside a write.
    let (_dir, contained) = registry_with(Support::Available {
        landlock_abi: 7,
        isolation: Isolation::Namespaces,
    });
    let make = contained.footprint("shell_exec", &json!({"command": "make"}));
    assert!(make.is_read_only(), "{make:?}");
    assert!(!make.conflicts_with(&read_a) && make.conflicts_with(&write_a));
    let escalated = contained.footprint(
        "shell_exec",
        &json!({"command": "make", "escalate": true, "reason": "build"}),
    );
    assert_eq!(escalated, Footprint::Exclusive);
}

#[test]
fn ask_summary_is_the_exact_command_made_visible() {
    let (dir, reg) = registry();
    let d = reg.decide(
        "shell_exec",
        &json!({"command": "make\u{1b}[2J && сurl x"}),
        Mode::Default,
    );
    let Decision::Ask { summary, detail } = d else {
        panic!("{d:?}")
    };
    assert_eq!(summary, "make\\x1b[2J && \\u{441}url x");
    assert!(detail.contains("not proven read-only"), "{detail}");
    let d = reg.decide(
        "fs_write",
        &json!({"path": "src/a.rs", "content": "", "expected_revision": "absent"}),
        Mode::Default,
    );
    let Decision::Ask { summary, .. } = d else {
        panic!("{d:?}")
    };
    // A file that does not exist yet is created, not edited.
    assert_eq!(summary, "create src/a.rs");
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "fn a() {}\n").unwrap();
    let d = reg.decide(
        "fs_write",
        &json!({"path": "src/a.rs", "content": "", "expected_revision": "x"}),
        Mode::Default,
    );
    let Decision::Ask { summary, .. } = d else {
        panic!("{d:?}")
    };
    assert_eq!(summary, "edit src/a.rs");
}

#[test]
fn deny_reasons_tell_the_model_what_to_do() {
    let (_dir, reg) = registry();
    let args = json!({"command": "touch x"});
    let Decision::Deny { reason } = reg.decide("shell_exec", &args, Mode::Plan) else {
        panic!()
    };
    assert!(reason.contains("plan mode is read-only"), "{reason}");
    let Decision::Deny { reason } = reg.decide("shell_exec", &args, Mode::DontAsk) else {
        panic!()
    };
    assert!(reason.contains("find another way"), "{reason}");
    let Decision::Deny { reason } =
        reg.decide("shell_exec", &json!({"command": "rm -rf ~"}), Mode::Bypass)
    else {
        panic!()
    };
    assert!(reason.contains("every mode"), "{reason}");
    let Decision::Deny { reason } = reg.decide("fs_read", &json!({"path": ".env"}), Mode::Bypass)
    else {
        panic!()
    };
    assert!(reason.contains("credential"), "{reason}");
    let Decision::Deny { reason } = reg.decide("nope", &json!({}), Mode::Bypass) else {
        panic!()
    };
    assert!(reason.contains("unknown tool"), "{reason}");
}

#[test]
fn run_rechecks_the_floor() {
    let (dir, reg) = registry();
    std::fs::write(dir.path().join(".env"), "K=secret").unwrap();
    for (name, args) in [
        ("shell_exec", json!({"command": "cat .env"})),
        ("shell_bg", json!({"command": "cat .env"})),
        ("fs_read", json!({"path": ".env"})),
        (
            "fs_write",
            json!({"path": ".env", "content": "x", "expected_revision": "absent"}),
        ),
    ] {
        let err = reg.run(name, &args, &CancelToken::new()).unwrap_err();
        assert!(matches!(err, ToolError::Refused(_)), "{name}: {err}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".env")).unwrap(),
        "K=secret"
    );
}

#[test]
fn check_command_uses_the_current_directory() {
    assert_eq!(
        ai_tools::policy::check_command("git status", Mode::Plan),
        Decision::Allow
    );
    assert!(matches!(
        ai_tools::policy::check_command("rm -rf /", Mode::Bypass),
        Decision::Deny { .. }
    ));
}

#[test]
fn edits_ask_with_the_diff_they_would_make() {
    let (dir, reg) = registry();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let detail = |name: &str, args: serde_json::Value| match reg.decide(name, &args, Mode::Default)
    {
        Decision::Ask { detail, .. } => detail,
        other => panic!("{other:?}"),
    };
    let d = detail(
        "fs_patch",
        json!({"path": "a.txt", "expected_revision": "x", "edits": [{"old": "two", "new": "three"}]}),
    );
    assert!(d.contains("-two") && d.contains("+three"), "{d}");
    let d = detail(
        "fs_patch",
        json!({"path": "a.txt", "expected_revision": "x", "edits": [{"old": "o", "new": "0"}]}),
    );
    assert!(d.contains("this edit will fail"), "{d}");
    let d = detail(
        "fs_write",
        json!({"path": "b.txt", "content": "new\n", "expected_revision": "absent"}),
    );
    assert!(d.contains("+new"), "{d}");
    let d = detail("fs_delete", json!({"path": "a.txt"}));
    assert!(d.contains("deletes a.txt (2 lines"), "{d}");
    // Asking changed nothing.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert!(!dir.path().join("b.txt").exists());
}

#[test]
fn modes_and_decisions_serialise_for_json_output() {
    assert_eq!(
        serde_json::to_value(Mode::AcceptEdits).unwrap(),
        json!("accept-edits")
    );
    assert_eq!(
        serde_json::from_value::<Mode>(json!("dont-ask")).unwrap(),
        Mode::DontAsk
    );
    let d = Decision::Ask {
        summary: "make".into(),
        detail: "why".into(),
    };
    assert_eq!(
        serde_json::to_value(&d).unwrap(),
        json!({"decision": "ask", "summary": "make", "detail": "why"})
    );
    assert_eq!(
        serde_json::to_value(Decision::Allow).unwrap(),
        json!({"decision": "allow"})
    );
}

/// A tool with a bug: it panics when run.
struct Panics;

impl ai_tools::Tool for Panics {
    fn name(&self) -> &'static str {
        "panics"
    }
    fn description(&self) -> &'static str {
        "always panics"
    }
    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object"})
    }
    fn effect(
        &self,
        _args: &serde_json::Value,
        _ws: &Workspace,
    ) -> Result<ai_tools::Effect, ToolError> {
        Ok(ai_tools::Effect::Read(Vec::new()))
    }
    fn run(
        &self,
        _args: &serde_json::Value,
        _ctx: &ai_tools::ToolContext,
    ) -> Result<ai_tools::ToolOutput, ToolError> {
        let v: Vec<u8> = Vec::new();
        panic!("index {} out of range", v.len() + 3)
    }
}

#[test]
fn a_panicking_tool_fails_its_call_and_the_registry_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = RegistryConfig::new(Workspace::new(dir.path()).unwrap());
    let tools: Vec<Box<dyn ai_tools::Tool>> =
        vec![Box::new(Panics), Box::new(ai_tools::tools::fs_list::FsList)];
    let reg = Registry::with_tools(cfg, tools);
    for _ in 0..2 {
        let e = reg
            .run("panics", &json!({}), &CancelToken::new())
            .unwrap_err();
        assert!(matches!(e, ToolError::Panicked(_)), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("the tool panicked: index 3 out of range"),
            "{e}"
        );
    }
    assert!(reg.run("fs_list", &json!({}), &CancelToken::new()).is_ok());
}
