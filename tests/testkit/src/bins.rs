//! The workspace's own binaries (`koi`, `k`), for tests in any package.
//!
//! Cargo hands an integration test the path of its own package's binaries
//! only (`CARGO_BIN_EXE_*`); the cross-crate tests in `tests/` run both
//! `koi` and `k`. Every test executable lives in `target/<profile>/deps/`,
//! beside the binaries one directory up, so they are found from there.
//! `./scripts/test` builds them first (`cargo build --workspace --bins`).

use std::path::PathBuf;

/// The directory the workspace's binaries are built into: the parent of
/// the running test executable's `deps/`.
pub fn dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let deps = exe.parent().expect("the test executable's directory");
    // Benchmarks and tests run from `deps/`; a binary run directly (a
    // helper) from the profile directory itself.
    if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().expect("the profile directory").to_path_buf()
    } else {
        deps.to_path_buf()
    }
}

/// The path of workspace binary `name`; panics with what to run when it
/// has not been built.
pub fn path(name: &str) -> PathBuf {
    let path = dir().join(name);
    assert!(
        path.is_file(),
        "{} is not built: these tests run the workspace's binaries; build them \
         first with `cargo build --workspace --bins` (./scripts/test does)",
        path.display()
    );
    path
}

/// `koi`, the terminal.
pub fn koi() -> PathBuf {
    path("koi")
}

/// `k`, the assistant on the command line.
pub fn k() -> PathBuf {
    path("k")
}
