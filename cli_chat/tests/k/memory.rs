//! The assistant's memory through `k`: the REPL hands its conversation to
//! the curator when it leaves, the next `k` is told what was kept, and
//! `/memory` shows and edits it.

use std::path::PathBuf;
use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RequestKind};

use crate::common::*;

const WAIT: Duration = Duration::from_secs(30);

/// The project memory files under `home`'s data dir.
fn project_files(home: &Home) -> Vec<PathBuf> {
    let dir = home.root().join("data/koi/memory/projects");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path().join("MEMORY.md"))
        .filter(|p| p.is_file())
        .collect()
}

#[test]
fn the_repl_keeps_memory_when_it_leaves_and_the_next_k_is_told() {
    let server = FakeProvider::start_with(4, |req, _| match req.kind {
        RequestKind::Memory => ChatStream::new()
            .text("ADD project: builds with make release")
            .stop()
            .reply()
            .for_memory(),
        RequestKind::Title => ChatStream::new().text("Builds").stop().reply().for_title(),
        _ if req.body_str().contains("second visit") => {
            ChatStream::new().text("Welcome back.").stop().reply()
        }
        _ => ChatStream::new().text("Noted.").stop().reply(),
    });
    let home = Home::new(Some(&server));
    home.write_config(&format!(
        "[ai]\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"fake-model\"\n",
        server.base_url()
    ));
    let mut k = PtyRun::start(&home, &[], &[]);
    k.wait_for("/help for commands", WAIT);
    k.answer("/memory");
    k.wait_for("project memory: ", WAIT);
    k.wait_for("no changes yet", WAIT);
    k.answer("we build with make release");
    k.wait_for("Noted.", WAIT);
    k.send(b"\x04");
    k.wait_for("memory updated:", WAIT);
    assert_eq!(k.wait_exit(WAIT), 0, "{}", k.text());
    assert!(k.text().contains("project + builds with make release"));
    let files = project_files(&home);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        std::fs::read_to_string(&files[0]).unwrap(),
        "- builds with make release\n"
    );
    let curator: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.kind == RequestKind::Memory)
        .collect();
    assert_eq!(curator.len(), 1);
    assert!(curator[0].body_str().contains("we build with make release"));

    // A new conversation's environment message carries the memory (the
    // old one's is never rewritten), and a one-shot `k` asks the curator
    // nothing when it leaves.
    let run = home.run(&["--new", "second visit"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let asked = server
        .requests()
        .into_iter()
        .find(|r| r.body_str().contains("second visit"))
        .unwrap();
    let env = &message_texts(&asked.json(), "user")[0];
    assert!(env.starts_with("<environment>"), "{env}");
    assert!(env.contains("- builds with make release"), "{env}");
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Memory)
            .count(),
        1
    );

    // `/memory edit` runs $EDITOR on the project's file.
    let editor = r#"sh -c 'echo "- edited by hand" >> "$1"' the-editor"#;
    let mut k = PtyRun::start(&home, &["--new"], &[("EDITOR", editor), ("VISUAL", "")]);
    k.wait_for("/help for commands", WAIT);
    k.answer("/memory edit");
    k.wait_for("edited ", WAIT);
    k.answer("/memory edit team");
    k.wait_for("use /memory, /memory edit or /memory edit global", WAIT);
    k.send(b"\x04");
    assert_eq!(k.wait_exit(WAIT), 0, "{}", k.text());
    assert_eq!(
        std::fs::read_to_string(&files[0]).unwrap(),
        "- builds with make release\n- edited by hand\n"
    );
}
