//! Closing a session leaves nothing behind. A test binary of its own, so
//! counting this process's threads is not disturbed by other tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;

#[test]
fn dropping_a_session_reaps_the_child_and_its_threads() {
    let threads_before = thread_count();
    let s = spawn(&["sh", "-c", "trap '' HUP; sleep 30"], 80, 24);
    let pid = s.pid().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(s);
    // The child (which ignores SIGHUP) is gone and reaped: no zombie.
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "child {pid} still exists"
    );
    assert!(thread_count() <= threads_before, "threads leaked");
}

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}
