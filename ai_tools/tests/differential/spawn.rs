//! The one place that forks: start a command inside fresh namespaces.
//!
//! The test process is multithreaded, and `unshare(CLONE_NEWUSER)` wants a
//! single-threaded caller, so the launcher forks first. Everything the
//! children need (paths, mount options, maps, argv, envp) is built into a
//! [`Plan`] *before* the fork: after it the children only make raw system
//! calls on that prepared memory, never allocate, and report a failing step
//! through a pipe as `[step, errno]`.
//!
//! Two processes:
//! - **outer** drops to an unused host uid (when the test runs as root, so a
//!   mapped root can never be real root), unshares user, mount, network,
//!   pid, uts, ipc and cgroup namespaces, maps itself to root inside, makes
//!   the whole inherited mount tree read-only and mounts the scratch areas
//!   on top; then waits for `init`.
//! - **init** is pid 1 of the new pid namespace: it mounts a `/proc` for
//!   that namespace, sets the rlimits, enters one more user namespace in
//!   which it is an ordinary user, sets `no_new_privs` and execs the tracer
//!   with the command. When pid 1 exits or is killed (because `outer` was,
//!   at the deadline), the kernel kills everything left in the namespace.

use std::ffi::{c_char, c_int, c_ulong, CString};
use std::fmt;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

mod child;

/// Host uid and gid the jail runs as when the test runs as root. Chosen far
/// above any uid a distribution hands out, so no host file is owned by it
/// and the jail's files are "other" to everything on the host.
pub const JAIL_HOST_ID: u32 = 2_917_000;

/// A step of the jail's setup, reported when it fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Fork,
    DropIds,
    Unshare,
    IdMaps,
    MakePrivate,
    BindState,
    ReadOnly,
    StateWritable,
    /// One of [`Plan::mounts`], by index.
    Mount(u8),
    ForkInit,
    MountProc,
    Rlimit,
    NestedUser,
    SetIds,
    NoNewPrivs,
    Chdir,
    Stdio,
    Exec,
    /// Host-side preparation of the run directory, before any fork.
    Prepare,
}

impl Step {
    /// Codes at and above this one are [`Step::Mount`] indices.
    const MOUNT_BASE: u8 = 64;

    fn code(self) -> u8 {
        match self {
            Step::Fork => 1,
            Step::DropIds => 2,
            Step::Unshare => 3,
            Step::IdMaps => 4,
            Step::MakePrivate => 5,
            Step::BindState => 6,
            Step::ReadOnly => 7,
            Step::StateWritable => 8,
            Step::ForkInit => 9,
            Step::MountProc => 10,
            Step::Rlimit => 12,
            Step::NestedUser => 13,
            Step::SetIds => 14,
            Step::NoNewPrivs => 15,
            Step::Chdir => 16,
            Step::Stdio => 17,
            Step::Exec => 18,
            Step::Prepare => 19,
            Step::Mount(i) => Self::MOUNT_BASE.saturating_add(i),
        }
    }

    fn from_code(code: u8) -> Step {
        const ALL: [Step; 18] = [
            Step::Fork,
            Step::DropIds,
            Step::Unshare,
            Step::IdMaps,
            Step::MakePrivate,
            Step::BindState,
            Step::ReadOnly,
            Step::StateWritable,
            Step::ForkInit,
            Step::MountProc,
            Step::Rlimit,
            Step::NestedUser,
            Step::SetIds,
            Step::NoNewPrivs,
            Step::Chdir,
            Step::Stdio,
            Step::Exec,
            Step::Prepare,
        ];
        if code >= Self::MOUNT_BASE {
            return Step::Mount(code - Self::MOUNT_BASE);
        }
        ALL.into_iter()
            .find(|s| s.code() == code)
            .unwrap_or(Step::Fork)
    }
}

/// The jail could not be set up; nothing of the command ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    pub step: Step,
    pub errno: i32,
    /// What the step was about (a mount's target, for [`Step::Mount`]).
    pub detail: String,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let err = std::io::Error::from_raw_os_error(self.errno);
        write!(
            f,
            "jail setup failed at {:?} {}: {err}",
            self.step, self.detail
        )
    }
}

/// One mount made on top of the read-only tree.
pub struct Mount {
    source: CString,
    target: CString,
    fstype: Option<CString>,
    flags: c_ulong,
    data: Option<CString>,
}

impl Mount {
    /// An overlay at `target` whose lower layer is what `target` is now.
    pub fn overlay(target: &str, upper: &str, work: &str) -> Result<Mount, String> {
        for p in [target, upper, work] {
            if p.contains([',', ':', '\\']) {
                return Err(format!("{p}: overlay options cannot carry , : or \\"));
            }
        }
        Ok(Mount {
            source: cstr("overlay")?,
            target: cstr(target)?,
            fstype: Some(cstr("overlay")?),
            flags: libc::MS_NOSUID | libc::MS_NODEV,
            data: Some(cstr(&format!(
                "lowerdir={target},upperdir={upper},workdir={work}"
            ))?),
        })
    }

    /// `source` seen at `target` too (writable when `source` is).
    pub fn bind(source: &str, target: &str) -> Result<Mount, String> {
        Ok(Mount {
            source: cstr(source)?,
            target: cstr(target)?,
            fstype: None,
            flags: libc::MS_BIND,
            data: None,
        })
    }

    /// A fresh, empty tmpfs at `target`.
    pub fn tmpfs(target: &str) -> Result<Mount, String> {
        Ok(Mount {
            source: cstr("tmpfs")?,
            target: cstr(target)?,
            fstype: Some(cstr("tmpfs")?),
            flags: libc::MS_NOSUID | libc::MS_NODEV,
            data: Some(cstr("mode=0755,size=8m")?),
        })
    }

    pub fn target(&self) -> String {
        self.target.to_string_lossy().into_owned()
    }

    /// # Safety
    /// Only raw system calls on owned memory; safe after fork.
    fn apply(&self) -> c_int {
        let opt = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        // SAFETY: every pointer is a NUL-terminated string this Mount owns
        // or null where mount(2) accepts null.
        unsafe {
            libc::mount(
                self.source.as_ptr(),
                self.target.as_ptr(),
                opt(&self.fstype),
                self.flags,
                opt(&self.data).cast(),
            )
        }
    }
}

/// A resource limit for the command.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub resource: libc::__rlimit_resource_t,
    pub soft: u64,
    pub hard: u64,
}

/// Everything the children need, prepared before the fork.
pub struct Plan {
    /// The host uid/gid to become first (when running as root), else none.
    drop_to: Option<u32>,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The ids the command runs as, in its own user namespace: the same
    /// numbers as on the host, so the owner git recorded in the fixture's
    /// index is the one it sees (a mismatch makes `git diff` rewrite it).
    inner_ids: (u32, u32),
    inner_uid_map: Vec<u8>,
    inner_gid_map: Vec<u8>,
    /// The per-run directory: stays writable (upper dirs, traces, output).
    state: CString,
    pub mounts: Vec<Mount>,
    cwd: CString,
    output: CString,
    limits: Vec<Limit>,
    program: CString,
    _argv: Vec<CString>,
    argv_ptrs: Vec<*const c_char>,
    _envp: Vec<CString>,
    envp_ptrs: Vec<*const c_char>,
}

/// How the jailed run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// The outer process's exit code (the tracer's, passed up).
    pub code: i32,
    /// It ran past its deadline and was killed.
    pub timed_out: bool,
}

fn cstr(s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{s:?} holds a NUL byte"))
}

impl Plan {
    /// `program argv…` with `envp`, run in `cwd` with stdout and stderr to
    /// `output`, after `mounts` on top of the read-only tree; `state` is the
    /// directory the mounts' writable parts live in.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        state: &str,
        mounts: Vec<Mount>,
        cwd: &str,
        output: &str,
        limits: Vec<Limit>,
        argv: &[String],
        envp: &[String],
    ) -> Result<Plan, String> {
        // SAFETY: geteuid/getegid cannot fail and touch no memory.
        let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let (drop_to, host_uid, host_gid) = if euid == 0 {
            (Some(JAIL_HOST_ID), JAIL_HOST_ID, JAIL_HOST_ID)
        } else {
            (None, euid, egid)
        };
        let argv: Vec<CString> = argv.iter().map(|a| cstr(a)).collect::<Result<_, _>>()?;
        let envp: Vec<CString> = envp.iter().map(|e| cstr(e)).collect::<Result<_, _>>()?;
        let program = argv.first().cloned().ok_or("empty argv")?;
        let mut argv_ptrs: Vec<*const c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        argv_ptrs.push(std::ptr::null());
        let mut envp_ptrs: Vec<*const c_char> = envp.iter().map(|e| e.as_ptr()).collect();
        envp_ptrs.push(std::ptr::null());
        Ok(Plan {
            drop_to,
            uid_map: format!("0 {host_uid} 1\n").into_bytes(),
            gid_map: format!("0 {host_gid} 1\n").into_bytes(),
            inner_ids: (host_uid, host_gid),
            inner_uid_map: format!("{host_uid} 0 1\n").into_bytes(),
            inner_gid_map: format!("{host_gid} 0 1\n").into_bytes(),
            state: cstr(state)?,
            mounts,
            cwd: cstr(cwd)?,
            output: cstr(output)?,
            limits,
            program,
            _argv: argv,
            argv_ptrs,
            _envp: envp,
            envp_ptrs,
        })
    }

    /// Run the plan; kill everything at `timeout`.
    pub fn launch(&self, timeout: Duration) -> Result<Exit, SetupError> {
        let mut fds = [0 as RawFd; 2];
        // SAFETY: pipe2 writes two fds into the array we own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(self.error(Step::Fork, last_errno()));
        }
        let [status_r, status_w] = fds;
        // SAFETY: the child runs only `outer`, which makes raw system calls
        // on memory prepared before the fork and never returns.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: we are the freshly forked child.
            unsafe { child::outer(self, status_w) }
        }
        // SAFETY: closing our copy of the write end, an fd we own.
        unsafe { libc::close(status_w) };
        if pid < 0 {
            // SAFETY: closing the read end we own.
            unsafe { libc::close(status_r) };
            return Err(self.error(Step::Fork, last_errno()));
        }
        let report = read_report(status_r);
        // SAFETY: closing the read end we own.
        unsafe { libc::close(status_r) };
        let exit = wait_with_deadline(pid, timeout);
        match report {
            Some((step, errno)) => Err(self.error(step, errno)),
            None => Ok(exit),
        }
    }

    fn error(&self, step: Step, errno: i32) -> SetupError {
        let detail = match step {
            Step::Mount(i) => self
                .mounts
                .get(usize::from(i))
                .map(Mount::target)
                .unwrap_or_default(),
            _ => String::new(),
        };
        SetupError {
            step,
            errno,
            detail,
        }
    }
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Read the children's failure report: `None` when the pipe closed empty,
/// which happens when the command's exec succeeded.
fn read_report(fd: RawFd) -> Option<(Step, i32)> {
    let mut buf = [0u8; 5];
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reading into the unfilled tail of our own buffer.
        let n = unsafe { libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        if n == 0 {
            break;
        }
        if n < 0 {
            if last_errno() == libc::EINTR {
                continue;
            }
            break;
        }
        got += n.unsigned_abs();
    }
    (got == buf.len()).then(|| {
        let errno = i32::from_le_bytes([buf[1], buf[2], buf[3], buf[4]]);
        (Step::from_code(buf[0]), errno)
    })
}

/// How long to sleep between polls of a running jail, at most. Short, since
/// most commands end within milliseconds.
const POLL_MAX: Duration = Duration::from_millis(10);

fn wait_with_deadline(pid: libc::pid_t, timeout: Duration) -> Exit {
    let start = Instant::now();
    let mut nap = Duration::from_micros(200);
    let mut timed_out = false;
    loop {
        let mut status: c_int = 0;
        // SAFETY: waitpid writes the status into our local.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                128 + libc::WTERMSIG(status)
            };
            return Exit { code, timed_out };
        }
        if r < 0 && last_errno() != libc::EINTR {
            return Exit {
                code: -1,
                timed_out,
            };
        }
        if !timed_out && start.elapsed() >= timeout {
            // Killing `outer` kills `init` (its parent-death signal), and
            // with pid 1 gone the kernel kills the whole namespace.
            // SAFETY: pid is our own unreaped child, so it cannot be reused.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            timed_out = true;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(POLL_MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::Step;

    #[test]
    fn step_codes_round_trip() {
        for step in [
            Step::Fork,
            Step::Unshare,
            Step::Exec,
            Step::Prepare,
            Step::Mount(0),
            Step::Mount(5),
        ] {
            assert_eq!(Step::from_code(step.code()), step);
        }
    }
}
