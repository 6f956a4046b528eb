//! Run one shell command line for real in a throwaway jail, without koi's
//! own sandbox, and say what it changed or tried to contact.
//!
//! What the command sees: the whole host filesystem read-only; the
//! fixture workspace, the outside directory and `$HOME` under one overlay
//! (each overlay mount costs tens of milliseconds) whose upper layer is a
//! per-run scratch directory; its own empty `/tmp`,
//! `/var/tmp` and `/dev/shm` (scratch directories too) and a tmpfs `/run`;
//! no network (a fresh network namespace has only a downed loopback); its
//! own pid namespace; an ordinary uid that owns nothing on the host.
//!
//! What counts as an effect (see [`crate::trace`] for the syscall side):
//! any entry in an upper layer or scratch directory after the run (except
//! the per-run `$TMPDIR`, which koi gives every command to write in), and
//! any traced attempt to write, change metadata, mount, or open a socket,
//! since the read-only view turns most writes into errors that leave
//! nothing behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fixture::{self, on_path, Fixture};
use crate::spawn::{Exit, Limit, Mount, Plan, SetupError, Step};
use crate::trace;

/// The per-run temp dir inside the jail (`$TMPDIR`): koi gives each command
/// one to write in, so writes there are not effects.
pub const JAIL_TMPDIR: &str = "/tmp/koi-run";

/// Wall-clock limit of one run: generous for a command over a small
/// fixture, short enough that a command that waits forever costs little.
const WALL_LIMIT: Duration = Duration::from_secs(10);

/// CPU seconds a process may use (soft limit: SIGXCPU; one more: SIGKILL).
const CPU_SECONDS: u64 = 5;
/// Processes the jail's uid may have: room for pipelines and the tracer,
/// none for a fork bomb.
const MAX_PROCS: u64 = 256;
/// Largest file a process may write (its output and the trace included).
const MAX_FILE_BYTES: u64 = 32 << 20;
/// How much of the command's output a report quotes.
const OUTPUT_TAIL: usize = 600;

/// Syscalls the tracer records: everything that can write, change
/// metadata, mount, set the clock or the host name, store a key in the
/// kernel (keyrings outlive the jail) or talk to the network, plus `open*`
/// (judged by flags).
/// A regular expression, so names this strace does not know (newer
/// syscalls) are simply not matched instead of being an error.
const TRACED: &str = "/^(open|openat|openat2|creat|unlink|unlinkat|rename|renameat|renameat2|\
mkdir|mkdirat|rmdir|link|linkat|symlink|symlinkat|chmod|fchmod|fchmodat|fchmodat2|\
chown|fchown|lchown|fchownat|truncate|ftruncate|utime|utimes|utimensat|futimesat|\
mknod|mknodat|setxattr|lsetxattr|fsetxattr|setxattrat|removexattr|lremovexattr|\
fremovexattr|removexattrat|mount|umount2|pivot_root|move_mount|fsopen|\
sethostname|setdomainname|clock_settime|clock_adjtime|settimeofday|adjtimex|\
io_uring_setup|add_key|keyctl|request_key|\
socket|connect|bind|listen|accept|accept4|sendto|sendmsg|sendmmsg)$";

/// A scratch area whose contents must stay empty.
struct Area {
    /// Its name in reports and its directory's name under the run dir.
    name: &'static str,
    kind: AreaKind,
}

enum AreaKind {
    /// An overlay over this fixture directory: its upper layer must stay
    /// empty.
    Overlay(PathBuf),
    /// A scratch directory bound over this host directory.
    Scratch(&'static str),
}

/// What one jailed run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What changed or was contacted, one line each.
    pub effects: Vec<String>,
    pub exit: Exit,
    /// Every traced process's trace ended with its exit.
    pub trace_complete: bool,
    /// The end of the command's stdout and stderr.
    pub output: String,
}

/// A jail ready to run commands one after another.
pub struct Jail {
    pub fixture: Fixture,
    strace: PathBuf,
    shell: PathBuf,
    env: Vec<String>,
    run_dir: PathBuf,
    areas: Vec<Area>,
}

impl Jail {
    /// Lay out the fixture and check, with a harmless command, that this
    /// machine can build the jail. `Err` says why not (to skip on).
    pub fn new() -> Result<Jail, NoJail> {
        let unsupported = |why: &str| NoJail::Unsupported(why.to_string());
        let strace = on_path("strace").ok_or_else(|| unsupported("strace is not installed"))?;
        let shell = ["/bin/bash", "/usr/bin/bash"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .ok_or_else(|| unsupported("bash is not installed"))?;
        let fixture = Fixture::new().map_err(NoJail::Broken)?;
        fixture::check_traversable(&fixture.root).map_err(NoJail::Unsupported)?;
        for hidden in fixture::COVERED {
            if fixture.root.starts_with(hidden) {
                return Err(NoJail::Unsupported(format!(
                    "the scratch dir {} is under {hidden}, which the jail covers",
                    fixture.root.display()
                )));
            }
        }
        let run_dir = fixture.root.join("run");
        let mut areas = vec![Area {
            name: "fixture",
            kind: AreaKind::Overlay(fixture.tree.clone()),
        }];
        for (name, host) in [
            ("tmp", "/tmp"),
            ("var-tmp", "/var/tmp"),
            ("dev-shm", "/dev/shm"),
        ] {
            if Path::new(host).is_dir() {
                areas.push(Area {
                    name,
                    kind: AreaKind::Scratch(host),
                });
            }
        }
        let env = jail_env(&fixture);
        let jail = Jail {
            fixture,
            strace,
            shell,
            env,
            run_dir,
            areas,
        };
        let probe = jail.run("true").map_err(|e| explain(&e))?;
        if !probe.effects.is_empty() || probe.exit.code != 0 {
            return Err(NoJail::Broken(format!(
                "the jail's probe `true` misbehaved: exit {}, effects {:?}, output {}",
                probe.exit.code, probe.effects, probe.output
            )));
        }
        Ok(jail)
    }

    /// Run `command` with `bash -c` in the workspace, traced, and report.
    pub fn run(&self, command: &str) -> Result<Outcome, SetupError> {
        self.run_with_limit(command, WALL_LIMIT)
    }

    /// [`Jail::run`], killing everything in the jail at `limit`.
    pub fn run_with_limit(&self, command: &str, limit: Duration) -> Result<Outcome, SetupError> {
        let run = &self.run_dir;
        let prepare = |detail| SetupError {
            step: Step::Prepare,
            errno: 0,
            detail,
        };
        self.fresh_run_dir().map_err(prepare)?;
        let plan = self.plan(command).map_err(prepare)?;
        let exit = plan.launch(limit)?;
        let mut effects = Vec::new();
        for area in &self.areas {
            let dir = match &area.kind {
                AreaKind::Overlay(_) => run.join("upper").join(area.name),
                AreaKind::Scratch(_) => run.join(area.name),
            };
            let left = entries(&dir).map_err(prepare)?;
            // A copied-up file brings its parent directories along: name
            // only the deepest entries.
            let deepest = left
                .iter()
                .filter(|e| !left.iter().any(|o| o != *e && o.starts_with(e)));
            for entry in deepest {
                let rel = entry.strip_prefix(&dir).unwrap_or(entry);
                if area.name == "tmp" && Path::new("/tmp").join(rel).starts_with(JAIL_TMPDIR) {
                    continue;
                }
                effects.push(format!("left {} in {}", rel.display(), area.name));
            }
        }
        let ctx = trace::Context {
            tmpdir: JAIL_TMPDIR,
        };
        let traces = entries(&run.join("trace")).map_err(prepare)?;
        // The shell always leaves a trace: none at all means the tracer
        // never ran, which must not read as "nothing happened".
        let mut trace_complete = !traces.is_empty();
        for file in traces {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            trace_complete &= text
                .lines()
                .next_back()
                .is_some_and(|l| l.starts_with("+++ "));
            effects.extend(trace::effects(&text, &ctx));
        }
        let output = std::fs::read(run.join("output")).unwrap_or_default();
        let tail = &output[output.len().saturating_sub(OUTPUT_TAIL)..];
        Ok(Outcome {
            effects,
            exit,
            trace_complete,
            output: String::from_utf8_lossy(tail).into_owned(),
        })
    }

    /// Empty upper layers, scratch areas and trace dir. Only what a run
    /// left is removed: recreating the tree each time costs more than the
    /// run itself.
    fn fresh_run_dir(&self) -> Result<(), String> {
        let run = &self.run_dir;
        let mut emptied = vec![run.join("trace"), run.join("tmp/koi-run")];
        let mut kept = Vec::new();
        for area in &self.areas {
            match area.kind {
                AreaKind::Overlay(_) => {
                    emptied.push(run.join("upper").join(area.name));
                    kept.push(run.join("work").join(area.name));
                }
                AreaKind::Scratch(_) => emptied.push(run.join(area.name)),
            }
        }
        let fresh = !run.exists();
        for d in emptied.iter().chain(&kept) {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        if fresh {
            return fixture::own_tree(run);
        }
        let keep = run.join("tmp/koi-run");
        for d in &emptied {
            let rd = std::fs::read_dir(d).map_err(|e| format!("{}: {e}", d.display()))?;
            for entry in rd.flatten() {
                let p = entry.path();
                if p == keep {
                    continue;
                }
                let gone = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
                gone.map_err(|e| format!("{}: {e}", p.display()))?;
            }
        }
        Ok(())
    }

    fn plan(&self, command: &str) -> Result<Plan, String> {
        let run = &self.run_dir;
        let s = |p: &Path| p.to_string_lossy().into_owned();
        let mut mounts = Vec::new();
        for area in &self.areas {
            mounts.push(match &area.kind {
                AreaKind::Overlay(target) => Mount::overlay(
                    &s(target),
                    &s(&run.join("upper").join(area.name)),
                    &s(&run.join("work").join(area.name)),
                )?,
                AreaKind::Scratch(host) => Mount::bind(&s(&run.join(area.name)), host)?,
            });
        }
        if Path::new("/run").is_dir() {
            mounts.push(Mount::tmpfs("/run")?);
        }
        let limits = vec![
            Limit {
                resource: libc::RLIMIT_CPU,
                soft: CPU_SECONDS,
                hard: CPU_SECONDS + 1,
            },
            Limit {
                resource: libc::RLIMIT_NPROC,
                soft: MAX_PROCS,
                hard: MAX_PROCS,
            },
            Limit {
                resource: libc::RLIMIT_FSIZE,
                soft: MAX_FILE_BYTES,
                hard: MAX_FILE_BYTES,
            },
            Limit {
                resource: libc::RLIMIT_CORE,
                soft: 0,
                hard: 0,
            },
        ];
        let argv: Vec<String> = [
            s(&self.strace).as_str(),
            // Follow forks, one file per process so lines never interleave.
            "-f",
            "-ff",
            // No attach/detach chatter; exit lines stay, to tell a complete
            // trace from a cut one.
            "-q",
            // Name every fd by its path (the dirfd of `*at` calls too).
            "-y",
            "-s",
            "4096",
            // Stop only on the traced syscalls: far faster.
            // (Signals stay shown: hiding them hides "killed by" too.)
            "--seccomp-bpf",
            "-e",
            &format!("trace={TRACED}"),
            "-o",
            &s(&run.join("trace/t")),
            "--",
            &s(&self.shell),
            "-c",
            command,
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        Plan::new(
            &s(run),
            mounts,
            &s(&self.fixture.ws),
            &s(&run.join("output")),
            limits,
            &argv,
            &self.env,
        )
    }
}

impl Drop for Jail {
    /// Overlayfs leaves mode-000 directories in its work dirs; a test that
    /// is not root could not remove its scratch tree past them.
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        for area in &self.areas {
            for sub in ["work", "index"] {
                let d = self.run_dir.join("work").join(area.name).join(sub);
                let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700));
            }
        }
    }
}

/// The environment koi gives a command (its scrubbed environment), with
/// home, temp dir and git config pointed into the scratch world.
fn jail_env(fx: &Fixture) -> Vec<String> {
    let overrides: Vec<(String, String)> = vec![
        ("HOME".into(), fx.home.to_string_lossy().into_owned()),
        ("TMPDIR".into(), JAIL_TMPDIR.into()),
        ("LANG".into(), "C.UTF-8".into()),
        // git reads no config but the scratch one: a host config could make
        // git run programs.
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        (
            "GIT_CONFIG_GLOBAL".into(),
            fx.gitconfig().to_string_lossy().into_owned(),
        ),
    ];
    let mut env: Vec<String> = ai_tools::secrets::scrubbed_env(&[], &fx.ws)
        .into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| !k.starts_with("XDG_") && !overrides.iter().any(|(o, _)| o == k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    env.extend(overrides.into_iter().map(|(k, v)| format!("{k}={v}")));
    env
}

/// Every path under `dir` (not `dir` itself).
fn entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut all = fixture::walk(dir)?;
    all.retain(|p| p != dir);
    Ok(all)
}

/// Why there is no jail.
#[derive(Debug)]
pub enum NoJail {
    /// This machine lacks what the jail needs: skip, saying so.
    Unsupported(String),
    /// The harness itself failed: a test failure.
    Broken(String),
}

/// Sort a failed setup into "this machine cannot" and "the harness is
/// wrong", saying what it means.
fn explain(e: &SetupError) -> NoJail {
    let what = match e.step {
        Step::DropIds => "this process cannot change to an unprivileged uid".to_string(),
        Step::Unshare | Step::IdMaps | Step::NestedUser => {
            "user namespaces are not available".to_string()
        }
        Step::MakePrivate | Step::BindState | Step::Mount(_) => format!(
            "mounts inside a user namespace (bind, overlayfs, tmpfs) are refused; if the \
             scratch dir is on an overlay, point {} at another filesystem",
            fixture::SCRATCH_VAR
        ),
        Step::ReadOnly | Step::StateWritable => "mount_setattr(2) is not available".to_string(),
        Step::MountProc => "a /proc for a new pid namespace cannot be mounted".to_string(),
        _ => return NoJail::Broken(e.to_string()),
    };
    NoJail::Unsupported(format!("{what} ({e})"))
}
