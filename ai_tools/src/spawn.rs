//! The one place tool processes are born. Every `shell_exec`, `shell_bg`
//! (and, later, MCP server) is forked by a single long-lived spawner
//! thread, because `PR_SET_PDEATHSIG` follows the *thread* that forked: a
//! child forked by a per-call thread would be killed when that thread
//! ended, and one forked without it outlives a `kill -9` of koi.
//!
//! Between fork and exec the child runs only async-signal-safe calls and
//! allocates nothing; everything it needs (the namespace plan, the Landlock
//! ruleset, the seccomp program, the parent's pid) is made in the parent:
//! 1. `prctl(PR_SET_PDEATHSIG, SIGKILL)`: die with the spawner;
//! 2. `getppid()` against the pid taken before the fork: a parent that died
//!    before step 1 went unnoticed, so the child gives up;
//! 3. `setsid()`: a session of its own, so no controlling terminal (nothing
//!    reaches the user's terminal but through koi) and one group to kill;
//! 4. for a confined run: its namespaces with the hidden paths mounted
//!    empty ([`crate::sandbox::namespace`]), every capability dropped, the
//!    limits, `PR_SET_NO_NEW_PRIVS`, `landlock_restrict_self` and the
//!    seccomp filter;
//! 5. with a PID namespace, one more fork: the command runs as the first
//!    process of the namespace, and this child keeps it (waits, passes its
//!    status on), so every process the run started ends with it.

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
    /// The run's own namespaces, where the kernel lets it have them.
    #[cfg(target_os = "linux")]
    namespaces: Option<crate::sandbox::namespace::NsPlan>,
    /// Resource limits of a run nobody approved.
    limits: Option<Limits>,
}

/// Processes one contained run may have at once (where it has a user
/// namespace, whose count is the run's own): a build's worth, far from a
/// fork bomb's.
pub const MAX_PROCESSES: libc::rlim_t = 1024;

/// Resource limits applied to a run before exec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `RLIMIT_NPROC`, applied where the run has a user namespace.
    pub processes: libc::rlim_t,
    /// `RLIMIT_DATA`: heap and private writable memory per process.
    pub data_bytes: libc::rlim_t,
}

impl Limits {
    /// The limits of a contained run: [`MAX_PROCESSES`], and half the
    /// machine's memory per process (a reader that needs more is not
    /// reading).
    pub fn contained() -> Limits {
        // SAFETY: sysconf only reads a configuration value.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let total = u64::try_from(pages)
            .unwrap_or(0)
            .saturating_mul(u64::try_from(page).unwrap_or(0));
        let data_bytes = if total == 0 {
            libc::RLIM_INFINITY
        } else {
            total / 2
        };
        Limits {
            processes: MAX_PROCESSES,
            data_bytes,
        }
    }
}

impl Confinement {
    /// No confinement (the sandbox is off or unavailable): the child still
    /// dies with koi.
    pub fn none() -> Self {
        Self::default()
    }

    /// Confine with this ruleset, filter, namespaces and limits (any may
    /// be missing where the kernel lacks it).
    #[cfg(target_os = "linux")]
    pub fn new(
        ruleset: Option<std::os::fd::OwnedFd>,
        filter: Option<Box<[libc::sock_filter]>>,
        namespaces: Option<crate::sandbox::namespace::NsPlan>,
        limits: Option<Limits>,
    ) -> Self {
        Confinement {
            ruleset,
            filter,
            namespaces,
            limits,
        }
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

/// Marks this process non-dumpable (`PR_SET_DUMPABLE` 0): its memory and
/// environment (`/proc/<pid>/environ`, where the API key lives) then need
/// `CAP_SYS_PTRACE` in the initial user namespace to read, which no tool
/// process has. koi and `k` call this first thing. A shell or program
/// they start is dumpable again after its exec, as usual.
pub fn keep_memory_private() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only changes a process flag.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0);
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
        if libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        if !c.is_confined() {
            return Ok(());
        }
        if let Some(ns) = &c.namespaces {
            ns.enter()?;
        }
        crate::sandbox::namespace::drop_capabilities()?;
        if let Some(limits) = &c.limits {
            set_limit(libc::RLIMIT_DATA, limits.data_bytes)?;
            if c.namespaces
                .as_ref()
                .is_some_and(|ns| ns.own_user_namespace())
            {
                set_limit(libc::RLIMIT_NPROC, limits.processes)?;
            }
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
        if c.namespaces
            .as_ref()
            .is_some_and(|ns| ns.new_pid_namespace())
        {
            crate::sandbox::namespace::fork_first_process()?;
        }
    }
    Ok(())
}

/// Lowers a resource limit (soft and hard) to `value`, never raising it.
///
/// # Safety
/// Async-signal-safe: only getrlimit/setrlimit on a local.
#[cfg(target_os = "linux")]
unsafe fn set_limit(resource: libc::__rlimit_resource_t, value: libc::rlim_t) -> io::Result<()> {
    // SAFETY: the caller upholds this function's contract; every call
    // below is a system call on memory made before the fork.
    unsafe {
        let mut current = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(resource, &mut current) != 0 {
            return Err(io::Error::last_os_error());
        }
        let limit = libc::rlimit {
            rlim_cur: current.rlim_cur.min(value),
            rlim_max: current.rlim_max.min(value),
        };
        if libc::setrlimit(resource, &limit) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Kill a whole process group: the session [`spawn`] made with `setsid`
/// (its id is the child's pid).
pub fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; any pgid value is memory-safe and
    // the group is the session the spawner made with setsid (pgid == child pid).
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}
