//! File tools against real files in temp dirs: revisions, exact-match
//! patches, appends, atomic writes, symlinks escaping the workspace.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use std::os::unix::fs::PermissionsExt;

use ai_tools::{CancelToken, Decision, Mode, Registry, RegistryConfig, ToolError, Workspace};
use serde_json::json;

#[path = "fs_tools/special.rs"]
mod special;

fn setup() -> (tempfile::TempDir, Registry) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws/src")).unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    let ws = Workspace::new(dir.path().join("ws")).unwrap();
    (dir, Registry::standard(RegistryConfig::new(ws)))
}

fn run(
    reg: &Registry,
    name: &str,
    args: serde_json::Value,
) -> Result<ai_tools::ToolOutput, ToolError> {
    reg.run(name, &args, &CancelToken::new())
}

fn revision(reg: &Registry, path: &str) -> String {
    let out = run(reg, "fs_read", json!({"path": path})).unwrap();
    let start = out.for_model.find("(revision ").unwrap() + "(revision ".len();
    out.for_model[start..start + 16].to_string()
}

#[test]
fn read_reports_revision_and_window() {
    let (dir, reg) = setup();
    let text: String = (1..=500).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("ws/big.txt"), &text).unwrap();
    let out = run(&reg, "fs_read", json!({"path": "big.txt"})).unwrap();
    assert!(
        out.for_model.contains("lines 1-200 of 500"),
        "{}",
        out.for_model
    );
    assert!(out.for_model.contains("continue with start_line=201"));
    assert!(out.for_model.contains("line 200\n"));
    assert!(!out.for_model.contains("line 201\n"));
    assert_eq!(out.preview, "read big.txt → 200 lines");
    let out = run(
        &reg,
        "fs_read",
        json!({"path": "big.txt", "start_line": 450}),
    )
    .unwrap();
    assert!(out.for_model.contains("lines 450-500 of 500"));
    assert!(!out.for_model.contains("continue"));
    // The revision covers the whole file whatever the window.
    let r1 = revision(&reg, "big.txt");
    let out = run(
        &reg,
        "fs_read",
        json!({"path": "big.txt", "start_line": 300, "end_line": 310}),
    )
    .unwrap();
    assert!(out.for_model.contains(&r1));
}

#[test]
fn read_char_budget_cuts_at_line_boundary() {
    let (dir, reg) = setup();
    let line = "x".repeat(999) + "\n";
    std::fs::write(dir.path().join("ws/wide.txt"), line.repeat(100)).unwrap();
    let out = run(&reg, "fs_read", json!({"path": "wide.txt"})).unwrap();
    assert!(
        out.for_model.contains("lines 1-16 of 100"),
        "{}",
        &out.for_model[..80]
    );
    assert!(out.for_model.contains("continue with start_line=17"));
}

#[test]
fn stale_revision_refuses_and_leaves_file_untouched() {
    let (dir, reg) = setup();
    let path = dir.path().join("ws/a.txt");
    std::fs::write(&path, "one\n").unwrap();
    let rev = revision(&reg, "a.txt");
    // Someone else changes the file after the model read it.
    std::fs::write(&path, "two\n").unwrap();
    let err = run(
        &reg,
        "fs_write",
        json!({"path": "a.txt", "content": "three\n", "expected_revision": rev}),
    )
    .unwrap_err();
    assert!(matches!(err, ToolError::StaleRevision { .. }), "{err}");
    assert!(err.to_string().contains("re-read the file"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
    let err = run(
        &reg,
        "fs_patch",
        json!({"path": "a.txt", "expected_revision": rev, "edits": [{"old": "two", "new": "x"}]}),
    )
    .unwrap_err();
    assert!(matches!(err, ToolError::StaleRevision { .. }));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
    // With the current revision it works and returns a diff.
    let rev = revision(&reg, "a.txt");
    let out = run(
        &reg,
        "fs_write",
        json!({"path": "a.txt", "content": "three\n", "expected_revision": rev}),
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "three\n");
    let diff = out.diff.unwrap();
    assert!(diff.contains("-two") && diff.contains("+three"), "{diff}");
    assert!(out.preview.contains("+1 -1"));
}

#[test]
fn absent_creates_only_new_files() {
    let (dir, reg) = setup();
    run(
        &reg,
        "fs_write",
        json!({"path": "src/new/mod.rs", "content": "x\n", "expected_revision": "absent"}),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ws/src/new/mod.rs")).unwrap(),
        "x\n"
    );
    let err = run(
        &reg,
        "fs_write",
        json!({"path": "src/new/mod.rs", "content": "y\n", "expected_revision": "absent"}),
    )
    .unwrap_err();
    assert!(matches!(err, ToolError::StaleRevision { .. }));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ws/src/new/mod.rs")).unwrap(),
        "x\n"
    );
    let err = run(
        &reg,
        "fs_write",
        json!({"path": "missing.rs", "content": "y", "expected_revision": "0123456789abcdef"}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("current absent"), "{err}");
}

#[test]
fn ambiguous_or_missing_old_is_refused() {
    let (dir, reg) = setup();
    let path = dir.path().join("ws/b.rs");
    std::fs::write(&path, "let a = 1;\nlet a = 1;\nlet b = 2;\n").unwrap();
    let rev = revision(&reg, "b.rs");
    let err = run(&reg, "fs_patch", json!({"path": "b.rs", "expected_revision": rev, "edits": [{"old": "let a = 1;", "new": "x"}]})).unwrap_err();
    assert!(
        matches!(err, ToolError::MatchCount { count: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("2 times"));
    let err = run(
        &reg,
        "fs_patch",
        json!({"path": "b.rs", "expected_revision": rev, "edits": [{"old": "let c", "new": "x"}]}),
    )
    .unwrap_err();
    assert!(matches!(err, ToolError::MatchCount { count: 0, .. }));
    // A later edit failing leaves earlier edits unwritten too.
    let err = run(&reg, "fs_patch", json!({"path": "b.rs", "expected_revision": rev, "edits": [{"old": "let b = 2;", "new": "let b = 3;"}, {"old": "nope", "new": ""}]})).unwrap_err();
    assert!(matches!(err, ToolError::MatchCount { index: 1, .. }));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "let a = 1;\nlet a = 1;\nlet b = 2;\n"
    );
    let out = run(&reg, "fs_patch", json!({"path": "b.rs", "expected_revision": rev, "edits": [{"old": "let b = 2;", "new": "let b = 3;"}]})).unwrap();
    assert!(out.diff.unwrap().contains("+let b = 3;"));
}

#[test]
fn append_and_permissions_kept() {
    let (dir, reg) = setup();
    let path = dir.path().join("ws/run.sh");
    std::fs::write(&path, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let rev = revision(&reg, "run.sh");
    run(
        &reg,
        "fs_patch",
        json!({"path": "run.sh", "expected_revision": rev, "append": "echo hi\n"}),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "#!/bin/sh\necho hi\n"
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o755
    );
    // No temp files left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path().join("ws"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("koi-")), "{names:?}");
}

#[test]
fn delete_checks_revision() {
    let (dir, reg) = setup();
    let path = dir.path().join("ws/gone.txt");
    std::fs::write(&path, "bye\n").unwrap();
    let err = run(
        &reg,
        "fs_delete",
        json!({"path": "gone.txt", "expected_revision": "0000000000000000"}),
    )
    .unwrap_err();
    assert!(matches!(err, ToolError::StaleRevision { .. }));
    assert!(path.exists());
    let rev = revision(&reg, "gone.txt");
    run(
        &reg,
        "fs_delete",
        json!({"path": "gone.txt", "expected_revision": rev}),
    )
    .unwrap();
    assert!(!path.exists());
}

#[test]
fn symlink_escaping_workspace_is_caught() {
    let (dir, reg) = setup();
    let outside = dir.path().join("outside");
    std::os::unix::fs::symlink(&outside, dir.path().join("ws/escape")).unwrap();
    std::fs::write(outside.join("id_rsa"), "PRIVATE").unwrap();
    std::os::unix::fs::symlink(outside.join("id_rsa"), dir.path().join("ws/harmless.txt")).unwrap();
    let args = json!({"path": "escape/new.txt", "content": "x", "expected_revision": "absent"});
    for mode in [Mode::AcceptEdits, Mode::Bypass] {
        assert!(
            matches!(reg.decide("fs_write", &args, mode), Decision::Ask { .. }),
            "{mode}"
        );
    }
    assert!(matches!(
        reg.decide("fs_write", &args, Mode::DontAsk),
        Decision::Deny { .. }
    ));
    // A harmless-looking name linking to a key is a credential read.
    let read = json!({"path": "harmless.txt"});
    assert!(matches!(
        reg.decide("fs_read", &read, Mode::Bypass),
        Decision::Deny { .. }
    ));
    let err = reg.run("fs_read", &read, &CancelToken::new()).unwrap_err();
    assert!(matches!(err, ToolError::Refused(_)), "{err}");
    // `.env` through `../` is still `.env`.
    std::fs::write(dir.path().join("ws/.env"), "K=v").unwrap();
    assert!(matches!(
        reg.decide("fs_read", &json!({"path": "src/../.env"}), Mode::Bypass),
        Decision::Deny { .. }
    ));
}

#[test]
fn bad_arguments_become_readable_errors() {
    let (_dir, reg) = setup();
    let err = run(&reg, "fs_read", json!({"file": "x"})).unwrap_err();
    assert!(
        err.to_string().contains("invalid arguments for fs_read"),
        "{err}"
    );
    assert!(err.to_string().contains("path"), "{err}");
    let err = run(&reg, "no_such_tool", json!({})).unwrap_err();
    assert!(matches!(err, ToolError::UnknownTool(_)));
    assert!(matches!(
        reg.decide("fs_write", &json!(["not", "an", "object"]), Mode::Bypass),
        Decision::Deny { .. }
    ));
}

#[test]
fn list_tree_grep_and_summary() {
    let (dir, reg) = setup();
    let ws = dir.path().join("ws");
    std::fs::write(ws.join("src/main.rs"), "fn main() {\n    // TODO one\n}\n").unwrap();
    std::fs::write(ws.join("src/lib.rs"), "// TODO two\n").unwrap();
    std::fs::write(ws.join(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir_all(ws.join("target")).unwrap();
    std::fs::write(ws.join("target/gen.rs"), "// TODO ignored\n").unwrap();
    std::fs::write(ws.join("server.pem"), "TODO secret\n").unwrap();
    std::fs::write(ws.join("README.md"), "# Demo\nhello\n").unwrap();
    std::fs::write(ws.join("Cargo.toml"), "[package]\n").unwrap();
    let out = run(&reg, "grep_search", json!({"pattern": "TODO"})).unwrap();
    assert!(
        out.for_model.contains("src/main.rs:2:"),
        "{}",
        out.for_model
    );
    assert!(out.for_model.contains("src/lib.rs:1:"));
    assert!(!out.for_model.contains("ignored"));
    assert!(!out.for_model.contains("secret"));
    assert!(out.for_model.contains("1 credential file was not searched"));
    assert_eq!(out.preview, "grep TODO → 2 matches in 2 files");
    let out = run(
        &reg,
        "grep_search",
        json!({"pattern": "todo", "case_insensitive": true, "glob": "main.rs"}),
    )
    .unwrap();
    assert_eq!(out.preview, "grep todo → 1 match in 1 file");
    let err = run(&reg, "grep_search", json!({"pattern": "("})).unwrap_err();
    assert!(err.to_string().contains("bad pattern"));
    let out = run(&reg, "fs_list", json!({})).unwrap();
    assert!(out.for_model.contains("src/\n") && out.for_model.contains("README.md"));
    let out = run(&reg, "file_tree", json!({"depth": 2})).unwrap();
    assert!(
        out.for_model.contains("  main.rs") || out.for_model.contains("    main.rs"),
        "{}",
        out.for_model
    );
    assert!(!out.for_model.contains("gen.rs"));
    let out = run(&reg, "project_summary", json!({})).unwrap();
    assert!(out.for_model.contains("Rust (2)"), "{}", out.for_model);
    assert!(out.for_model.contains("Cargo.toml"));
    assert!(out.for_model.contains("# Demo"));
}

#[test]
fn many_grep_matches_are_capped_with_counts() {
    let (dir, reg) = setup();
    for f in 0..20 {
        let text: String = (0..50).map(|i| format!("hit {i}\n")).collect();
        std::fs::write(dir.path().join(format!("ws/f{f:02}.txt")), text).unwrap();
    }
    let out = run(&reg, "grep_search", json!({"pattern": "hit"})).unwrap();
    assert_eq!(
        out.for_model
            .lines()
            .filter(|l| l.contains(": hit"))
            .count(),
        200
    );
    assert!(
        out.for_model
            .contains("800 more matches not shown (1000 in 20 files)"),
        "{}",
        &out.for_model[out.for_model.len() - 200..]
    );
}

#[test]
fn memory_read_reads_both_memory_files() {
    let dir = tempfile::tempdir().unwrap();
    let global = dir.path().join("MEMORY.md");
    let project = dir.path().join("project/MEMORY.md");
    std::fs::write(&global, "- prefers tabs\n").unwrap();
    let mut cfg = RegistryConfig::new(Workspace::new(dir.path()).unwrap());
    cfg.memory = Some(ai_tools::MemoryFiles {
        global,
        project: project.clone(),
    });
    let reg = Registry::standard(cfg);
    let out = reg
        .run("memory_read", &json!({}), &CancelToken::new())
        .unwrap();
    assert!(out.for_model.contains("prefers tabs"), "{}", out.for_model);
    assert!(
        out.for_model
            .contains(&format!("project memory ({}): empty", project.display())),
        "{}",
        out.for_model
    );
    assert_eq!(out.preview, "memory → 1 line");

    let off = Registry::standard(RegistryConfig::new(Workspace::new(dir.path()).unwrap()));
    let out = off
        .run("memory_read", &json!({}), &CancelToken::new())
        .unwrap();
    assert!(
        out.for_model.starts_with("memory is off"),
        "{}",
        out.for_model
    );
}

#[test]
fn empty_binary_and_missing_files() {
    let (dir, reg) = setup();
    std::fs::write(dir.path().join("ws/empty.txt"), "").unwrap();
    std::fs::write(dir.path().join("ws/blob.bin"), [0u8, 1, 2, 3]).unwrap();
    let out = run(&reg, "fs_read", json!({"path": "empty.txt"})).unwrap();
    assert!(
        out.for_model.contains("empty file (revision "),
        "{}",
        out.for_model
    );
    let out = run(&reg, "fs_read", json!({"path": "blob.bin"})).unwrap();
    assert!(
        out.for_model.contains("binary file (4 bytes"),
        "{}",
        out.for_model
    );
    let err = run(&reg, "fs_read", json!({"path": "nope.txt"})).unwrap_err();
    assert!(err.to_string().contains("does not exist"));
    let err = run(&reg, "fs_read", json!({"path": "src"})).unwrap_err();
    assert!(err.to_string().contains("is a directory"));
    std::fs::write(dir.path().join("ws/two.txt"), "a\nb\n").unwrap();
    let err = run(&reg, "fs_read", json!({"path": "two.txt", "start_line": 5})).unwrap_err();
    assert!(err.to_string().contains("past the end"), "{err}");
}
