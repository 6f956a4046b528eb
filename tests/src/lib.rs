//! End-to-end tests that cross koi's crates live in `tests/e2e/`: they run
//! the workspace's `koi` and `k` binaries together (found beside the test
//! executable, see `koi_testkit::bins`; `./scripts/test` builds them
//! first). What they share with the window tests of `term` is in
//! `koi_testkit::window` and `koi_testkit::pty`. This library is empty.

#![forbid(unsafe_code)]
