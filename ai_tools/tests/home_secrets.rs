//! The floor against a home directory of its own: hard links to the
//! credentials kept there, and koi's data directory wherever
//! `XDG_DATA_HOME` puts it. One test, so the environment it sets is the
//! only one this process sees.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::policy_table::code;
use ai_tools::{policy, Effect, Mode, Workspace};

#[test]
fn home_credentials_by_inode_and_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let home = base.join("home");
    let data = base.join("xdg-data");
    let ws_root = base.join("ws");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::fs::create_dir_all(data.join("koi/sessions")).unwrap();
    std::fs::create_dir_all(ws_root.join("docs")).unwrap();
    std::fs::write(
        home.join(".ssh/id_ed25519"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\n",
    )
    .unwrap();
    std::fs::write(home.join(".aws/credentials"), "[default]\n").unwrap();
    std::fs::write(home.join(".netrc"), "machine x password y\n").unwrap();
    std::fs::write(data.join("koi/sessions/a.jsonl"), "{\"secret\":1}\n").unwrap();
    std::fs::write(ws_root.join("docs/plain.md"), "plain\n").unwrap();
    // Innocent names inside the workspace for the credentials above.
    std::fs::hard_link(home.join(".ssh/id_ed25519"), ws_root.join("docs/notes.md")).unwrap();
    std::fs::hard_link(home.join(".aws/credentials"), ws_root.join("config.ini")).unwrap();
    std::fs::hard_link(home.join(".netrc"), ws_root.join("docs/hosts.txt")).unwrap();
    // A file with two names, neither a credential's.
    std::fs::write(ws_root.join("docs/a.txt"), "a\n").unwrap();
    std::fs::hard_link(ws_root.join("docs/a.txt"), ws_root.join("docs/b.txt")).unwrap();
    std::env::set_var("HOME", &home);
    std::env::set_var("XDG_DATA_HOME", &data);
    let ws = Workspace::new(&ws_root).unwrap();

    let shell = |cmd: &str| code(&policy::check_command_in(cmd, Mode::Default, &ws));
    for cmd in [
        "cat docs/notes.md",
        "head -c 100 config.ini",
        "grep password docs/hosts.txt",
        "wc -l < docs/notes.md",
        "cat docs/*.md",
    ] {
        assert_eq!(shell(cmd), 'D', "{cmd}");
    }
    for cmd in ["grep -r KEY docs", "rg KEY", "diff -r docs docs"] {
        assert_eq!(shell(cmd), 'Q', "{cmd}");
    }
    for cmd in [
        "cat docs/plain.md",
        "cat docs/b.txt",
        "grep -r a docs/a.txt",
    ] {
        assert_eq!(shell(cmd), 'A', "{cmd}");
    }
    let read = |path: &std::path::Path| {
        code(&policy::decide(
            &Effect::Read(vec![path.to_path_buf()]),
            Mode::Default,
            &ws,
        ))
    };
    assert_eq!(read(&ws_root.join("docs/notes.md")), 'D');
    assert_eq!(read(&ws_root.join("docs/b.txt")), 'A');

    // koi's data directory is where XDG_DATA_HOME says.
    let session = data.join("koi/sessions/a.jsonl");
    assert_eq!(read(&session), 'D');
    assert_eq!(read(&data.join("koi")), 'D');
    assert_eq!(shell(&format!("cat {}", session.display())), 'D');
    assert_eq!(
        shell(&format!("cat {}/koi/sessions/*", data.display())),
        'D'
    );
    assert_eq!(shell(&format!("grep -r x {}", data.display())), 'Q');
}
