//! The scratch world a jailed command sees: the policy table's fixture
//! workspace (a git repository when git is installed), the directory
//! outside it, and a home with its own git config. All of it lives under
//! cargo's per-target scratch directory, never in `/tmp`, because the jail
//! puts its own empty `/tmp` over the host's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use ai_tools::policy_table;
use ai_tools::Workspace;

use crate::spawn::JAIL_HOST_ID;

/// The fixture, laid out once per [`crate::jail::Jail`].
pub struct Fixture {
    /// The scratch root (canonical); removed on drop.
    pub root: PathBuf,
    /// The directory holding the workspace, the outside directory and the
    /// home: one overlay covers all three.
    pub tree: PathBuf,
    /// The workspace the policy judges and the command runs in.
    pub ws: PathBuf,
    /// The directory outside the workspace (`@OUT@`).
    pub out: PathBuf,
    /// The scratch `$HOME`.
    pub home: PathBuf,
    /// `@OUT@`'s value, as the policy table rows want it.
    pub outside: String,
    pub workspace: Workspace,
    /// Whether the workspace is a git repository (git is installed).
    pub has_git: bool,
    _dir: tempfile::TempDir,
}

/// Where to lay out the scratch world instead of cargo's scratch dir: for
/// machines whose target dir is on a filesystem overlayfs cannot use as an
/// upper layer (an overlay itself, as in a container).
pub const SCRATCH_VAR: &str = "KOI_DIFFTEST_DIR";

/// Directories the jail mounts its own scratch file systems over: a scratch
/// world laid out under one of them would vanish inside the jail.
pub const COVERED: [&str; 4] = ["/tmp", "/var/tmp", "/dev/shm", "/run"];

/// Where the scratch world goes: [`SCRATCH_VAR`], else cargo's scratch dir,
/// else (a checkout under `/tmp`, as CI clones may be) the first of a few
/// system directories the jail leaves visible and its unprivileged uid can
/// reach.
fn scratch_base() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(SCRATCH_VAR) {
        return Ok(PathBuf::from(dir));
    }
    let candidates = [
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        PathBuf::from("/var/cache/koi-difftest"),
        PathBuf::from("/var/lib/koi-difftest"),
    ];
    let usable = |dir: &PathBuf| {
        !COVERED.iter().any(|c| dir.starts_with(c))
            && std::fs::create_dir_all(dir).is_ok()
            && check_traversable(dir).is_ok()
    };
    candidates
        .iter()
        .find(|d| usable(d))
        .cloned()
        .ok_or_else(|| {
            format!(
                "no scratch directory outside {} that others can reach; set {SCRATCH_VAR}",
                COVERED.join(", ")
            )
        })
}

/// The scratch `$HOME`'s git config: an identity, so a command that would
/// commit is not stopped by a missing one before it can show its effect.
const GITCONFIG: &str = "[user]\n\tname = difftest\n\temail = difftest@localhost\n\
                         [init]\n\tdefaultBranch = main\n";

impl Fixture {
    pub fn new() -> Result<Fixture, String> {
        let base = scratch_base()?;
        let dir = tempfile::Builder::new()
            .prefix("difftest-")
            .tempdir_in(base)
            .map_err(|e| format!("scratch dir: {e}"))?;
        let root = dir
            .path()
            .canonicalize()
            .map_err(|e| format!("scratch dir: {e}"))?;
        let tree = root.join("fixture");
        let (ws, out, home) = (tree.join("ws"), tree.join("out"), tree.join("home"));
        let outside =
            policy_table::write_fixture(&ws, &out).map_err(|e| format!("fixture: {e}"))?;
        std::fs::create_dir_all(&home).map_err(|e| format!("home: {e}"))?;
        std::fs::write(home.join(".gitconfig"), GITCONFIG).map_err(|e| format!("home: {e}"))?;
        // Owned and dated before git records them, so the index git writes
        // is fresh: a stale one makes `git diff` rewrite it, a real write
        // that would drown the findings.
        own_tree(&root)?;
        backdate(&root)?;
        let has_git = init_repo(&ws, &home)?;
        own_tree(&ws.join(".git"))?;
        let workspace = Workspace::new(&ws).map_err(|e| format!("workspace: {e}"))?;
        Ok(Fixture {
            root,
            tree,
            ws,
            out,
            home,
            outside,
            workspace,
            has_git,
            _dir: dir,
        })
    }

    /// The scratch git config, for `GIT_CONFIG_GLOBAL`.
    pub fn gitconfig(&self) -> PathBuf {
        self.home.join(".gitconfig")
    }
}

/// Whether `program` is on the host's `PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Two commits, so `HEAD~1` exists: the `clean/` directory, then the rest
/// (the vendored repositories aside).
fn init_repo(ws: &Path, home: &Path) -> Result<bool, String> {
    let Some(git) = on_path("git") else {
        return Ok(false);
    };
    let steps: [&[&str]; 5] = [
        &["init", "-q"],
        &["add", "clean"],
        &["commit", "-q", "-m", "clean"],
        &["add", "-A"],
        &["commit", "-q", "-m", "fixture"],
    ];
    for (i, args) in steps.into_iter().enumerate() {
        if i == 1 {
            // The repositories vendored inside the fixture have no commit
            // for the outer one to record: leave them out of it.
            std::fs::write(ws.join(".git/info/exclude"), "/vendor/\n")
                .map_err(|e| format!("git exclude: {e}"))?;
        }
        let out = Command::new(&git)
            .args(["-c", "safe.directory=*"])
            .args(args)
            .current_dir(ws)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
            .output()
            .map_err(|e| format!("git {args:?}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(true)
}

/// How far back the fixture's files are dated: far enough that none is
/// "racily clean" (as new as the index), which git would re-check and
/// may rewrite the index for.
const BACKDATE: Duration = Duration::from_secs(3600);

fn backdate(root: &Path) -> Result<(), String> {
    let when = SystemTime::now() - BACKDATE;
    for p in walk(root)? {
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            std::fs::File::options()
                .append(true)
                .open(&p)
                .and_then(|f| f.set_modified(when))
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    Ok(())
}

/// `root` and every path under it, depth first, symlinks not followed.
pub fn walk(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_dir() {
            for entry in std::fs::read_dir(&p).map_err(|e| format!("{}: {e}", p.display()))? {
                stack.push(entry.map_err(|e| format!("{}: {e}", p.display()))?.path());
            }
        }
        out.push(p);
    }
    out.sort();
    Ok(out)
}

/// Whether the jail runs under [`JAIL_HOST_ID`] (the test runs as root).
pub fn drops_to_jail_id() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The jail's uid must reach the scratch root through every ancestor.
pub fn check_traversable(root: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    if !drops_to_jail_id() {
        return Ok(());
    }
    for dir in root.ancestors().skip(1) {
        let mode = std::fs::metadata(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .permissions()
            .mode();
        if mode & 0o001 == 0 {
            return Err(format!(
                "{} is not searchable by other users (mode {mode:o}); the jail's \
                 unprivileged uid cannot reach the scratch directory",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Give the scratch tree to the jail's uid (when it has one of its own), so
/// the command owns its workspace as a user would.
pub fn own_tree(root: &Path) -> Result<(), String> {
    if !drops_to_jail_id() {
        return Ok(());
    }
    let id = Some(JAIL_HOST_ID);
    for p in walk(root)? {
        std::os::unix::fs::lchown(&p, id, id).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}
