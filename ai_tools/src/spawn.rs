//! The one place tool processes are born. Every `shell_exec`, `shell_bg`
//! (and, later, MCP server) is forked by a single long-lived spawner
//! thread, because `PR_SET_PDEATHSIG` follows the *thread* that forked: a
//! child forked by a per-call thread would be killed when that thread
//! ended, and one forked without it outlives a `kill -9` of koi.
//!
//! Between fork and exec the child runs only async-signal-safe calls and
//! allocates nothing; everything it needs (the Landlock ruleset, the
//! seccomp program, the parent's pid) is made in the parent:
//! 1. `prctl(PR_SET_PDEATHSIG, SIGKILL)`: die with the spawner;
//! 2. `getppid()` against the pid taken before the fork: a parent that died
//!    before step 1 went unnoticed, so the child gives up;
//! 3. for a confined run, `prctl(PR_SET_NO_NEW_PRIVS)`,
//!    `landlock_restrict_self` and the seccomp filter.

use std::io;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::OnceLock;

/// What a child applies to itself after fork, built in the parent.
#[derive(Debug, Default)]
pub struct Confinement {
    /// A Landlock ruleset to enforce.
    #[cfg(target_os = "linux")]
    ruleset: Option<std::os::fd::OwnedFd>,
    /// A seccomp program to install.
    #[cfg(target_os = "linux")]
    filter: Option<Box<[libc::sock_filter]>>,
}

impl Confinement {
    /// No confinement (the sandbox is off or unavailable): the child still
    /// dies with koi.
    pub fn none() -> Self {
        Self::default()
    }

    /// Confine with this ruleset and filter (either may be missing where
    /// the kernel lacks it).
    #[cfg(target_os = "linux")]
    pub fn new(
        ruleset: Option<std::os::fd::OwnedFd>,
        filter: Option<Box<[libc::sock_filter]>>,
    ) -> Self {
        Confinement { ruleset, filter }
    }

    /// Whether anything is applied beyond the death signal.
    pub fn is_confined(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.ruleset.is_some() || self.filter.is_some()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}

struct Request {
    command: Command,
    confinement: Confinement,
    reply: mpsc::Sender<io::Result<Child>>,
}

/// The spawner thread's inbox, started on first use. It runs until the
/// process ends (its sender is never dropped), so the death signal of its
/// children fires exactly when koi dies.
fn spawner() -> io::Result<&'static mpsc::Sender<Request>> {
    static INBOX: OnceLock<Result<mpsc::Sender<Request>, String>> = OnceLock::new();
    let inbox = INBOX.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("koi-spawner".into())
            .spawn(move || {
                for request in rx {
                    let Request {
                        mut command,
                        confinement,
                        reply,
                    } = request;
                    let child = fork_here(&mut command, confinement);
                    // The caller waits for this reply; if it went away the
                    // child is dropped, and dies with koi.
                    let _ = reply.send(child);
                }
            })
            .map(|_| tx)
            .map_err(|e| e.to_string())
    });
    inbox
        .as_ref()
        .map_err(|e| io::Error::other(format!("the spawner thread could not start: {e}")))
}

/// Spawn `command` from the spawner thread, applying `confinement` in the
/// child. Blocks until the fork is done.
pub fn spawn(command: Command, confinement: Confinement) -> io::Result<Child> {
    let (reply, answer) = mpsc::channel();
    spawner()?
        .send(Request {
            command,
            confinement,
            reply,
        })
        .map_err(|_| io::Error::other("the spawner thread is gone"))?;
    answer
        .recv()
        .map_err(|_| io::Error::other("the spawner thread did not answer"))?
}

#[cfg(target_os = "linux")]
fn fork_here(command: &mut Command, confinement: Confinement) -> io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    let parent = libc::pid_t::try_from(parent).map_err(|_| io::Error::other("pid out of range"))?;
    // SAFETY: the closure runs in the child between fork and exec and
    // calls only async-signal-safe functions (prctl, getppid, syscall) on
    // data made before the fork; it allocates nothing (io::Error from a
    // raw errno is a plain integer).
    unsafe {
        command.pre_exec(move || after_fork(parent, &confinement));
    }
    command.spawn()
}

#[cfg(not(target_os = "linux"))]
fn fork_here(command: &mut Command, _confinement: Confinement) -> io::Result<Child> {
    command.spawn()
}

/// Runs in the child after fork. See the module comment for the order.
#[cfg(target_os = "linux")]
fn after_fork(parent: libc::pid_t, c: &Confinement) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY (all calls below): prctl and getppid take integers only;
    // landlock_restrict_self takes a descriptor the parent opened; seccomp
    // reads a sock_fprog that points into `c.filter`, alive for this call.
    unsafe {
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            // koi died between fork and prctl: no one would ever kill us.
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if !c.is_confined() {
            return Ok(());
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(fd) = &c.ruleset {
            if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        if let Some(filter) = &c.filter {
            let len = libc::c_ushort::try_from(filter.len())
                .map_err(|_| io::Error::from_raw_os_error(libc::E2BIG))?;
            let prog = libc::sock_fprog {
                len,
                filter: filter.as_ptr().cast_mut(),
            };
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0u32,
                &prog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}
