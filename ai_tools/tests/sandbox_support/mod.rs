//! What the sandbox tests share: the skip rule, a workspace, and running
//! one command at a chosen level.

#![allow(dead_code)] // Each test file uses its own part.

use std::path::{Path, PathBuf};

use ai_tools::sandbox::{support, Support};
use ai_tools::{
    CancelToken, Level, Registry, RegistryConfig, SandboxConfig, SandboxMode, ToolOutput, Workspace,
};
use koi_testkit::skip::{skip, SANDBOX};
use serde_json::json;

/// The kernel's Landlock ABI, or `None` after recording why the test is
/// skipped (a failure where the sandbox family is required: CI on a
/// kernel known to have Landlock sets `KOI_SANDBOX_TESTS=require`).
pub fn landlock_abi(test: &str) -> Option<i32> {
    match support() {
        Support::Available { landlock_abi, .. } => Some(*landlock_abi),
        Support::Unavailable(why) => {
            skip(
                SANDBOX,
                test,
                &format!("no usable sandbox on this kernel: {why}"),
            );
            None
        }
    }
}

/// The kernel's Landlock ABI when it is at least `least`, or `None` after
/// recording that `part` of `test` cannot run on this kernel.
pub fn landlock_abi_at_least(test: &str, least: i32, part: &str) -> Option<i32> {
    let abi = landlock_abi(test)?;
    if abi < least {
        skip(
            SANDBOX,
            test,
            &format!("{part}: Landlock ABI {abi} lacks it ({least} is needed)"),
        );
        return None;
    }
    Some(abi)
}

/// A workspace with a file in it, and a registry over it.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub registry: Registry,
}

impl Fixture {
    pub fn new(mode: SandboxMode, writable: Vec<PathBuf>) -> Fixture {
        Self::with(mode, writable, Vec::new(), None)
    }

    /// A fixture whose registry hides `hidden` too, and (when given) takes
    /// the kernel to offer `support`.
    pub fn with(
        mode: SandboxMode,
        writable: Vec<PathBuf>,
        hidden: Vec<PathBuf>,
        support: Option<Support>,
    ) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let root = root.canonicalize().unwrap();
        std::fs::write(root.join("keep.txt"), "original\n").unwrap();
        let mut cfg = RegistryConfig::new(Workspace::new(&root).unwrap());
        cfg.sandbox = SandboxConfig {
            mode,
            writable,
            hidden,
        };
        let mut registry = Registry::standard(cfg);
        if let Some(support) = support {
            registry = registry.with_sandbox_support(support);
        }
        Fixture {
            dir,
            root,
            registry,
        }
    }

    /// Runs `command` with `shell_exec` at the read-only level, whatever
    /// the policy thinks of it: what a wrong proof would let through.
    pub fn read_only(&self, command: &str) -> ToolOutput {
        let ctx = self.registry.context(CancelToken::new());
        assert_eq!(ctx.sandbox.level(), Some(Level::ReadOnly));
        self.direct(command)
    }

    /// Runs `command` with `shell_exec` in the registry's base context
    /// (read-only, or unconfined where the sandbox is off).
    pub fn direct(&self, command: &str) -> ToolOutput {
        let ctx = self.registry.context(CancelToken::new());
        self.registry
            .get("shell_exec")
            .unwrap()
            .run(&json!({ "command": command }), &ctx)
            .unwrap()
    }

    /// Runs `command` through the registry, as after approval.
    pub fn approved(&self, command: &str) -> ToolOutput {
        self.registry
            .run(
                "shell_exec",
                &json!({ "command": command }),
                &CancelToken::new(),
            )
            .unwrap()
    }
}

/// Every entry under `root`: path, kind, size, content, mode and mtime,
/// so any change at all shows.
pub fn snapshot(root: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let m = std::fs::symlink_metadata(&path).unwrap();
            let content = if m.is_file() {
                std::fs::read_to_string(&path).unwrap_or_default()
            } else {
                String::new()
            };
            out.push(format!(
                "{} dir={} len={} mode={:o} mtime={}.{} {content:?}",
                path.display(),
                m.is_dir(),
                m.len(),
                m.mode(),
                m.mtime(),
                m.mtime_nsec()
            ));
            if m.is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A name no other test run uses (abstract sockets are machine-wide).
pub fn unique(prefix: &str) -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{nanos}", std::process::id())
}
