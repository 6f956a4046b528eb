//! `k policy check` agrees with the tools crate's policy table.

use std::sync::Mutex;

use ai_tools::policy_table::{self, code_of_label, Call};

use crate::common::Home;

/// The fixture the table's header describes; returns the `@OUT@` value.
fn fixture(home: &Home) -> String {
    policy_table::write_fixture(&home.ws(), &home.root().join("outside")).unwrap()
}

#[test]
fn policy_check_matches_the_policy_table() {
    let home = Home::new(None);
    // The table is the proof's: what runs where no sandbox exists.
    home.write_config("[ai]\nsandbox = \"off\"\n");
    let out = fixture(&home);
    let rows = policy_table::load().unwrap();
    assert!(rows.len() >= 150);
    let failures = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(row) = rows.get(i) else { return };
                let call = row.call(&out);
                let mut args = vec!["policy", "check", "--all-modes", "--json"];
                match &call {
                    Call::Command(command) => args.extend(["--", command.as_str()]),
                    Call::Tool { name, args: json } => {
                        args.extend(["--tool", name, "--args", json.as_str()]);
                    }
                }
                let run = home.run(&args, None);
                assert_eq!(run.code, 0, "line {}: {}", row.line, run.stderr);
                let got: String = run
                    .events()
                    .iter()
                    .map(|v| {
                        assert_eq!(v["v"], 1);
                        code_of_label(v["verdict"]["decision"].as_str().unwrap())
                            .expect("a decision")
                    })
                    .collect();
                if got != row.codes {
                    failures.lock().unwrap().push(format!(
                        "line {}: want {} got {got}: {} {}",
                        row.line, row.codes, row.kind, row.input
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} rows disagree:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn policy_check_text_says_why() {
    let home = Home::new(None);
    let run = home.run(
        &[
            "policy", "check", "--mode", "plan", "--", "rm", "-rf", "build",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("plan: deny — "), "{}", run.stdout);
    // With the sandbox, an unproven command runs contained, and the text
    // does not call it read-only; without, it asks.
    let run = home.run(
        &["policy", "check", "--mode", "default", "--", "rm -rf build"],
        None,
    );
    if ai_tools::sandbox::support().landlock_abi().is_some() {
        assert!(
            run.stdout
                .starts_with("default: allow — not proven read-only; runs contained"),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("sandbox: read-only"), "{}", run.stdout);
    }
    home.write_config("[ai]\nsandbox = \"off\"\n");
    let run = home.run(
        &["policy", "check", "--mode", "default", "--", "rm -rf build"],
        None,
    );
    assert!(
        run.stdout.contains("would ask: rm -rf build"),
        "{}",
        run.stdout
    );
    let run = home.run(
        &["policy", "check", "--tool", "fs_read", "--args", "{"],
        None,
    );
    assert_eq!(run.code, 2);
}

/// `explore` is the engine's own tool, not the registry's: `k policy
/// check` judges it as a conversation would (a read, allowed in every
/// mode), its bad arguments are refused with the reason, and a name no
/// tool has is still unknown.
#[test]
fn policy_check_knows_the_engines_own_explore_tool() {
    let home = Home::new(None);
    let check = |tool: &str, args: &str| {
        home.policy_verdicts(tool, args)
            .iter()
            .map(|v| {
                let verdict = &v["verdict"];
                (
                    verdict["decision"].as_str().unwrap().to_owned(),
                    verdict["reason"].as_str().unwrap().to_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    let task = check("explore", r#"{"task": "where is the config parsed?"}"#);
    assert_eq!(task.len(), ai_tools::Mode::ALL.len());
    assert!(task.iter().all(|(d, _)| d == "allow"), "{task:?}");
    let empty = check("explore", r#"{"task": ""}"#);
    assert!(
        empty
            .iter()
            .all(|(d, why)| d == "deny" && why.contains("`task` is empty")),
        "{empty:?}"
    );
    let unknown = check("explorer", "{}");
    assert!(
        unknown
            .iter()
            .all(|(d, why)| d == "deny" && why.contains("unknown tool")),
        "{unknown:?}"
    );
    // The text form says so too.
    let run = home.run(
        &[
            "policy",
            "check",
            "--mode",
            "default",
            "--tool",
            "explore",
            "--args",
            r#"{"task": "how are tabs laid out?"}"#,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("default: allow"), "{}", run.stdout);
}

/// The file `--config` named holds API keys: `k policy check` protects it
/// as the chat does, for reads and for recursive searches above it.
#[test]
fn policy_check_protects_the_config_file() {
    let home = Home::new(None);
    let dir = home.root().join("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("my-koi.toml");
    // Where no sandbox exists the proof decides alone: a search above the
    // file asks. (With the sandbox it would run contained, the file
    // hidden: confidential.rs.)
    std::fs::write(&config, "[ai]\nsandbox = \"off\"\n").unwrap();
    let path = config.to_str().unwrap();
    let dir_str = dir.to_str().unwrap();
    let judge = |with_config: bool, cmd: &str| -> String {
        let mut args = Vec::new();
        if with_config {
            args.extend(["--config", path]);
        }
        args.extend(["policy", "check", "--mode", "default", "--", cmd]);
        let run = home.run(&args, None);
        assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
        run.stdout
    };
    let read = format!("cat {path}");
    assert!(
        judge(true, &read).starts_with("default: deny"),
        "{}",
        judge(true, &read)
    );
    assert!(
        judge(false, &read).starts_with("default: allow"),
        "{}",
        judge(false, &read)
    );
    let search = format!("grep -r api_key {dir_str}");
    assert!(
        judge(true, &search).starts_with("default: ask"),
        "{}",
        judge(true, &search)
    );
    assert!(
        judge(false, &search).starts_with("default: allow"),
        "{}",
        judge(false, &search)
    );
}

#[test]
fn policy_check_and_config_name_the_sandbox() {
    use ai_tools::sandbox::{support, Support};
    let home = Home::new(None);
    let (read_only, write) = match support() {
        Support::Available { .. } => ("read-only".to_string(), "workspace-write".to_string()),
        Support::Unavailable(why) => {
            let none = format!("none (unavailable: {why})");
            (none.clone(), none)
        }
    };
    let sandbox_of = |command: &str| {
        let run = home.run(
            &[
                "policy", "check", "--mode", "default", "--json", "--", command,
            ],
            None,
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.events()[0]["verdict"]["sandbox"].clone()
    };
    assert_eq!(sandbox_of("ls -la"), read_only.as_str());
    // Unproven: contained (read-only) where the sandbox is; asked and then
    // workspace-write where it is not, or when the model asks for access.
    assert_eq!(sandbox_of("touch made"), read_only.as_str());
    let escalated = home.run(
        &[
            "policy",
            "check",
            "--mode",
            "default",
            "--json",
            "--tool",
            "shell_exec",
            "--args",
            r#"{"command": "touch made", "escalate": true, "reason": "to make it"}"#,
        ],
        None,
    );
    assert_eq!(escalated.code, 0, "{}", escalated.stderr);
    let verdict = &escalated.events()[0]["verdict"];
    assert_eq!(verdict["decision"], "ask", "{verdict}");
    assert_eq!(verdict["sandbox"], write.as_str(), "{verdict}");
    assert!(
        verdict["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("to make it"),
        "{verdict}"
    );
    // Text says it too.
    let run = home.run(&["policy", "check", "--", "cat", "README.md"], None);
    assert!(
        run.stdout.contains(&format!("sandbox: {read_only}")),
        "{}",
        run.stdout
    );
    // Denied: it never runs, so no sandbox is named.
    let run = home.run(
        &[
            "policy",
            "check",
            "--mode",
            "plan",
            "--json",
            "--",
            "rm -rf build",
        ],
        None,
    );
    assert!(
        run.events()[0]["verdict"].get("sandbox").is_none(),
        "{}",
        run.stdout
    );

    // Off in the config: commands run unsandboxed, and both say so.
    home.write_config("[ai]\nsandbox = \"off\"\n");
    assert_eq!(sandbox_of("ls -la"), "none (off)");
    let run = home.run(&["config"], None);
    let state = run
        .stdout
        .lines()
        .find(|l| l.starts_with("sandbox_state"))
        .unwrap_or_default();
    assert!(state.contains("sandbox: off"), "{}", run.stdout);
    let mode = run
        .stdout
        .lines()
        .find(|l| l.starts_with("sandbox "))
        .unwrap_or_default();
    assert!(mode.contains("off") && mode.contains("(config)"), "{mode}");

    // A bad value is a clear error.
    home.write_config("[ai]\nsandbox = \"maybe\"\n");
    let run = home.run(&["config"], None);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("sandbox"), "{}", run.stderr);
}
