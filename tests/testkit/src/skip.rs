//! The one way a test skips: it names the family of tests that cannot run
//! here and why, and the skip is seen and counted.
//!
//! A skip is written where `cargo test` shows it even for a passing test
//! (stderr, not the captured print macros), and appended as one line,
//! `family<TAB>test<TAB>why`, to the file [`LOG_VAR`] names, for a CI run
//! to list at its end. A family that [`REQUIRE_VAR`] names (or `all`)
//! must run: there the skip fails the test instead. The older switches
//! still work: `KOI_SANDBOX_TESTS=require` requires [`SANDBOX`] and
//! [`USERNS`], `KOI_DIFFTEST=require` requires [`DIFFERENTIAL`].

use std::io::Write;

/// Names the file every skip is appended to.
pub const LOG_VAR: &str = "KOI_SKIP_LOG";
/// Names the families that must run, separated by commas, or `all`.
pub const REQUIRE_VAR: &str = "KOI_REQUIRE";

/// The kernel's sandbox (Landlock, and the Landlock ABI a test needs).
pub const SANDBOX: &str = "sandbox";
/// Unprivileged user and mount namespaces (`unshare -rm`).
pub const USERNS: &str = "userns";
/// The differential harness's jail (namespaces, overlayfs, strace).
pub const DIFFERENTIAL: &str = "differential";
/// A shell koi integrates with besides bash (zsh, fish).
pub const SHELLS: &str = "shells";
/// Programs the tests drive when they are installed (git, python3).
pub const PROGRAMS: &str = "programs";

/// Whether `family` must run here.
pub fn required(family: &str) -> bool {
    let listed = std::env::var(REQUIRE_VAR).unwrap_or_default();
    let by_list = listed
        .split(',')
        .map(str::trim)
        .any(|f| f == "all" || f == family);
    let legacy = |var: &str| std::env::var(var).as_deref() == Ok("require");
    by_list
        || (legacy("KOI_SANDBOX_TESTS") && (family == SANDBOX || family == USERNS))
        || (legacy("KOI_DIFFTEST") && family == DIFFERENTIAL)
}

/// Records that `test` (of `family`) does not run here, and why: on
/// stderr, in the skip log, and as a failure where the family is
/// required. Call it and return from the test.
pub fn skip(family: &str, test: &str, why: &str) {
    let line = format!("{family}\t{test}\t{}", why.replace(['\t', '\n'], " "));
    if let Some(path) = std::env::var_os(LOG_VAR) {
        // One write of one line to a file opened for appending: lines of
        // parallel tests and processes do not interleave.
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = written {
            panic!("cannot record a skip in {}: {e}", path.to_string_lossy());
        }
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED [{family}] {test}: {why}");
    assert!(
        !required(family),
        "{test}: the {family} family is required here ({REQUIRE_VAR}) and cannot run: {why}"
    );
}
