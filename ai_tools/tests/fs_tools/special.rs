//! File tools against files that are not regular: FIFOs, devices,
//! sockets, files larger than the budget or still growing. Each must
//! answer promptly with a clear error or a bounded result, never hang.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ai_tools::tools::fs_common::MAX_FILE_BYTES;
use ai_tools::{CancelToken, Mode, ToolError};
use serde_json::json;

use super::{run, setup};

/// Only turns a hang into a failure: what these tests guard against (an
/// open of a FIFO with no writer, a read of a file that never stops
/// growing) never ends, so no machine load comes near it. How fast the
/// tools answer is not measured here.
const HANG: Duration = Duration::from_secs(60);

/// Runs `f` on its own thread and returns its result, failing (not
/// stalling) the test if it never answers.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(HANG)
        .unwrap_or_else(|_| panic!("{what} hung (no answer in {HANG:?})"))
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(rc, 0, "mkfifo {}", path.display());
}

/// The error `fs_read` gives for `path` (on its own thread, so that a hang
/// fails the test instead of stalling it).
fn read_error(reg: &Arc<ai_tools::Registry>, path: &str) -> ToolError {
    let (reg, path2) = (Arc::clone(reg), path.to_string());
    within(&format!("fs_read of {path}"), move || {
        reg.run("fs_read", &json!({"path": path2}), &CancelToken::new())
    })
    .expect_err("a special file must not be read")
}

#[test]
fn fifo_device_and_socket_are_refused_without_blocking() {
    let (dir, reg) = setup();
    let reg = Arc::new(reg);
    let ws = dir.path().join("ws");
    mkfifo(&ws.join("pipe"));
    std::os::unix::fs::symlink("/dev/zero", ws.join("zero")).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(ws.join("sock")).unwrap();

    let e = read_error(&reg, "pipe");
    assert!(matches!(e, ToolError::NotRegularFile { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "pipe is a FIFO (named pipe), not a regular file; file tools read only regular files"
    );
    let e = read_error(&reg, "zero");
    assert!(e.to_string().contains("is a character device"), "{e}");
    let e = read_error(&reg, "sock");
    assert!(e.to_string().contains("sock is a socket"), "{e}");
}

#[test]
fn edits_of_a_fifo_fail_and_their_preview_says_so() {
    let (dir, reg) = setup();
    mkfifo(&dir.path().join("ws/pipe"));
    let args = json!({"path": "pipe", "content": "x", "expected_revision": "absent"});
    // An open of the FIFO would block forever (no writer): answering at
    // all shows none was tried.
    let e = run(&reg, "fs_write", args.clone()).unwrap_err();
    assert!(e.to_string().contains("is a FIFO"), "{e}");
    let e = run(
        &reg,
        "fs_patch",
        json!({"path": "pipe", "expected_revision": "absent", "append": "x"}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("is a FIFO"), "{e}");
    let e = run(&reg, "fs_delete", json!({"path": "pipe"})).unwrap_err();
    assert!(e.to_string().contains("is a FIFO"), "{e}");
    match reg.decide("fs_write", &args, Mode::Default) {
        ai_tools::Decision::Ask { detail, .. } => {
            assert!(detail.contains("this write will fail"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    // Still a FIFO: nothing was written over it.
    let meta = std::fs::symlink_metadata(dir.path().join("ws/pipe")).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
}

#[test]
fn a_file_larger_than_the_budget_is_cut_at_the_budget() {
    let (dir, reg) = setup();
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    let lines = (MAX_FILE_BYTES as usize / line.len()) + 1000;
    std::fs::write(dir.path().join("ws/huge.log"), line.repeat(lines)).unwrap();
    let out = run(&reg, "fs_read", json!({"path": "huge.log"})).unwrap();
    // Lines that start within the budget (the last one may be cut).
    let budget_lines = (MAX_FILE_BYTES as usize).div_ceil(line.len());
    assert!(
        out.for_model
            .contains(&format!("lines 1-200 of {budget_lines}")),
        "{}",
        &out.for_model[..200]
    );
    assert!(out.for_model.contains("revision none, too large to edit"));
    assert!(out
        .for_model
        .contains(&format!("only the first {MAX_FILE_BYTES} bytes")));
    // The window may go to the end of what was read, not past it.
    let out = run(
        &reg,
        "fs_read",
        json!({"path": "huge.log", "start_line": budget_lines}),
    )
    .unwrap();
    assert!(out.for_model.contains(&format!("of {budget_lines}")));
    // Edits need the whole file: refused, not silently truncated.
    let e = run(
        &reg,
        "fs_patch",
        json!({"path": "huge.log", "expected_revision": "x", "append": "y"}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("the limit for file tools"), "{e}");
    assert_eq!(
        std::fs::metadata(dir.path().join("ws/huge.log"))
            .unwrap()
            .len(),
        (lines * line.len()) as u64
    );
    // grep searches the budget's worth and says so.
    let out = run(
        &reg,
        "grep_search",
        json!({"pattern": "^0123.*cde$", "path": "huge.log"}),
    )
    .unwrap();
    assert!(
        out.for_model.contains("searched only in their first"),
        "{}",
        out.for_model
    );
}

#[test]
fn a_growing_file_is_read_bounded() {
    let (dir, reg) = setup();
    let path = dir.path().join("ws/growing.log");
    std::fs::write(&path, "start\n").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, path) = (Arc::clone(&stop), path);
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
            let chunk = "more log text that keeps coming\n".repeat(2048);
            while !stop.load(Ordering::Relaxed) {
                let _ = f.write_all(chunk.as_bytes());
            }
        })
    };
    // Let it grow first, so the size at open is stale by the time of the read.
    std::thread::sleep(Duration::from_millis(50));
    // The writer stops only after the read: an unbounded read never ends.
    let reg = Arc::new(reg);
    let out = within("fs_read of a growing file", move || {
        run(&reg, "fs_read", json!({"path": "growing.log"}))
    })
    .unwrap();
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    assert!(
        out.for_model.starts_with("growing.log: lines 1-200 of "),
        "{}",
        &out.for_model[..100]
    );
}

#[test]
fn proc_files_that_claim_size_zero_are_read() {
    let (_dir, reg) = setup();
    let out = run(&reg, "fs_read", json!({"path": "/proc/self/status"})).unwrap();
    assert!(out.for_model.contains("Pid:"), "{}", out.for_model);
}

#[test]
fn a_cancelled_read_stops_between_chunks() {
    // No file here can be made slow to read (that needs a stalled network
    // or FUSE filesystem); the chunked read loop is tested against a slow
    // source in the crate's unit tests. Here: a read that starts cancelled
    // stops instead of loading the file.
    let (dir, reg) = setup();
    std::fs::write(dir.path().join("ws/big.txt"), "x\n".repeat(4 << 20)).unwrap();
    let cancel = CancelToken::new();
    cancel.cancel();
    let r = reg.run("fs_read", &json!({"path": "big.txt"}), &cancel);
    assert!(matches!(r, Err(ToolError::Cancelled)), "{r:?}");
}

#[test]
fn search_and_tree_skip_special_files_and_say_so() {
    let (dir, reg) = setup();
    let ws = dir.path().join("ws");
    std::fs::write(ws.join("src/a.rs"), "// needle\n").unwrap();
    mkfifo(&ws.join("src/pipe.rs"));
    // A FIFO named .gitignore would hang the walker that reads it.
    std::fs::create_dir_all(ws.join("trap")).unwrap();
    std::fs::write(ws.join("trap/b.rs"), "// needle in trap\n").unwrap();
    mkfifo(&ws.join("trap/.gitignore"));
    let out = run(&reg, "grep_search", json!({"pattern": "needle"})).unwrap();
    assert!(
        out.for_model.contains("src/a.rs:1: // needle"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model
            .contains("1 FIFOs, devices or sockets were skipped"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.contains("trap/ was not entered"),
        "{}",
        out.for_model
    );
    let out = run(&reg, "file_tree", json!({})).unwrap();
    assert!(!out.for_model.contains("pipe.rs"), "{}", out.for_model);
    assert!(
        out.for_model.contains("trap/ was not entered"),
        "{}",
        out.for_model
    );
    let out = run(&reg, "project_summary", json!({})).unwrap();
    assert!(out.for_model.contains("Rust (1)"), "{}", out.for_model);
    // A search rooted at the trap itself is refused rather than hung.
    let e = run(&reg, "grep_search", json!({"pattern": "x", "path": "trap"})).unwrap_err();
    assert!(e.to_string().contains("is a FIFO (named pipe)"), "{e}");
    let out = run(
        &reg,
        "grep_search",
        json!({"pattern": "x", "path": "src/pipe.rs"}),
    )
    .unwrap();
    assert!(out.for_model.contains("1 FIFOs"), "{}", out.for_model);
}
