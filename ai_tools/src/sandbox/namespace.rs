//! The run's own namespaces: a mount namespace in which every hidden path
//! is an empty, read-only mount, and a PID namespace whose end takes every
//! process of the run with it. Unprivileged users get both through a user
//! namespace; root needs none.
//!
//! [`NsPlan`] is built in the parent (every path a `CString`, every map a
//! byte string) so that [`NsPlan::enter`], which runs in the child between
//! fork and exec, only makes system calls on memory that already exists.
//!
//! The host's processes and sockets stay visible on purpose: the PID
//! namespace is made without a new `/proc`, so `ps`, `top` and `pgrep` read
//! the host's (people ask about their machine), while `kill` and `ptrace`
//! name processes by the run's own numbers and cannot reach the host's.
//! The network namespace is the host's too (`ss`, `ip addr`); sockets are
//! the seccomp filter's and Landlock's business.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::hidden::{HiddenKind, HiddenPaths};

/// Whether the namespaces need a user namespace: without `CAP_SYS_ADMIN`
/// (any user but root) a mount namespace can only be made inside one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// Root: mount and PID namespaces alone; capabilities are dropped
    /// before exec.
    Root,
    /// Anyone else: a user namespace that maps the user to itself.
    User {
        /// The real user id (mapped to itself).
        uid: libc::uid_t,
        /// The real group id (mapped to itself).
        gid: libc::gid_t,
    },
}

impl Owner {
    /// The owner for this process.
    pub fn current() -> Owner {
        // SAFETY: getuid/getgid/geteuid cannot fail and take no arguments.
        let (uid, gid, euid) = unsafe { (libc::getuid(), libc::getgid(), libc::geteuid()) };
        if euid == 0 {
            Owner::Root
        } else {
            Owner::User { uid, gid }
        }
    }

    fn flags(self) -> libc::c_int {
        let base = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
        match self {
            Owner::Root => base,
            Owner::User { .. } => base | libc::CLONE_NEWUSER,
        }
    }
}

/// One hidden path, ready for `mount(2)`.
#[derive(Debug)]
struct Target {
    path: CString,
    kind: HiddenKind,
}

/// The identity maps of a user namespace, written by the child itself.
#[derive(Debug)]
struct Maps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

/// Everything the child needs to enter its namespaces, made in the parent.
#[derive(Debug)]
pub struct NsPlan {
    flags: libc::c_int,
    maps: Option<Maps>,
    /// Where the empty file system is assembled: the run's temp dir, which
    /// exists and is shown again (unmounted) before the command starts.
    staging: CString,
    /// `staging/f` and `staging/d`: the empty file and directory that are
    /// bound over hidden files and directories.
    empty_file: CString,
    empty_dir: CString,
    targets: Vec<Target>,
}

/// A path as a C string; a path with a NUL byte cannot exist.
fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

impl NsPlan {
    /// The plan for a run whose temp dir is `staging`, hiding `hidden`.
    pub fn new(owner: Owner, staging: &Path, hidden: &HiddenPaths) -> io::Result<NsPlan> {
        let maps = match owner {
            Owner::Root => None,
            Owner::User { uid, gid } => Some(Maps {
                uid_map: format!("{uid} {uid} 1\n").into_bytes(),
                gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            }),
        };
        let targets = hidden
            .entries()
            .iter()
            .map(|e| {
                Ok(Target {
                    path: c_path(&e.path)?,
                    kind: e.kind,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(NsPlan {
            flags: owner.flags(),
            maps,
            staging: c_path(staging)?,
            empty_file: c_path(&staging.join("f"))?,
            empty_dir: c_path(&staging.join("d"))?,
            targets,
        })
    }

    /// Whether the run gets its own PID namespace (the child must then
    /// fork once more: see [`crate::spawn`]).
    pub fn new_pid_namespace(&self) -> bool {
        self.flags & libc::CLONE_NEWPID != 0
    }

    /// Whether a user namespace is made (the process-count limit then
    /// counts this run's processes only).
    pub fn own_user_namespace(&self) -> bool {
        self.maps.is_some()
    }

    /// Enters the namespaces and hides every target. Runs in the child
    /// after fork: system calls only, on memory made before the fork.
    ///
    /// # Safety
    /// Call only in a freshly forked, single-threaded child.
    pub unsafe fn enter(&self) -> io::Result<()> {
        // SAFETY: the caller upholds this function's contract; every call
        // below is a system call on memory made before the fork.
        unsafe {
            check(libc::unshare(self.flags))?;
            if let Some(maps) = &self.maps {
                // A non-dumpable process's /proc/self belongs to root, so
                // its maps could not be written: dumpable for the writes,
                // then never again (this process holds a copy of koi's
                // memory until it execs, and as the run's keeper for good).
                set_dumpable(true)?;
                let written = write_maps(maps);
                set_dumpable(false)?;
                written?;
            } else {
                set_dumpable(false)?;
            }
            // Nothing mounted here may reach the host's namespace.
            check(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            if self.targets.is_empty() {
                return Ok(());
            }
            self.assemble_empty()?;
            for t in &self.targets {
                let source = match t.kind {
                    HiddenKind::Dir => &self.empty_dir,
                    HiddenKind::File => &self.empty_file,
                };
                let r = libc::mount(
                    source.as_ptr(),
                    t.path.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                );
                // A path removed since the plan was made hides nothing; any
                // other failure leaves a secret in view, so the run stops.
                if r != 0 && errno() != libc::ENOENT {
                    return Err(io::Error::last_os_error());
                }
            }
            check(libc::umount2(self.staging.as_ptr(), libc::MNT_DETACH))
        }
    }

    /// A read-only tmpfs holding one empty file and one empty directory,
    /// mounted over the staging directory.
    unsafe fn assemble_empty(&self) -> io::Result<()> {
        // SAFETY: the caller upholds this function's contract; every call
        // below is a system call on memory made before the fork.
        unsafe {
            let nothing = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            check(libc::mount(
                c"tmpfs".as_ptr(),
                self.staging.as_ptr(),
                c"tmpfs".as_ptr(),
                nothing,
                c"mode=0555,size=16k".as_ptr().cast(),
            ))?;
            check(libc::mkdir(self.empty_dir.as_ptr(), 0o555))?;
            let fd = libc::open(
                self.empty_file.as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o444 as libc::c_uint,
            );
            check(fd)?;
            libc::close(fd);
            // Read-only for the superblock: every bind of it is read-only too.
            check(libc::mount(
                std::ptr::null(),
                self.staging.as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_RDONLY | nothing,
                std::ptr::null(),
            ))
        }
    }
}

/// Sets or clears the process's dumpable flag.
///
/// # Safety
/// Async-signal-safe: one prctl with integers.
unsafe fn set_dumpable(on: bool) -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_DUMPABLE, libc::c_ulong::from(on), 0, 0, 0) })
}

/// Writes the identity maps of a fresh user namespace.
///
/// # Safety
/// Call only in a freshly forked, single-threaded child.
unsafe fn write_maps(maps: &Maps) -> io::Result<()> {
    // SAFETY: system calls on memory made before the fork.
    unsafe {
        write_proc(c"/proc/self/setgroups", b"deny")?;
        write_proc(c"/proc/self/uid_map", &maps.uid_map)?;
        write_proc(c"/proc/self/gid_map", &maps.gid_map)
    }
}

/// The calling thread's errno.
pub(crate) fn errno() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes `data` to a `/proc/self` control file in one `write(2)`.
unsafe fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: the caller upholds this function's contract; every call
    // below is a system call on memory made before the fork.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd)?;
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        let err = (n < 0).then(io::Error::last_os_error);
        libc::close(fd);
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Capabilities, dropped for good before a confined command starts: the
/// bounding set (so a root exec gains none back), the ambient set, and the
/// effective, permitted and inheritable sets; `SECBIT_NOROOT` and friends,
/// locked, so uid 0 means nothing special to `execve`. Without
/// `CAP_SYS_PTRACE` (and with koi non-dumpable) `/proc/<koi>/environ` is
/// closed even to root; without `CAP_SYS_ADMIN` no hidden mount can be
/// undone.
///
/// # Safety
/// Call only in a freshly forked, single-threaded child.
pub unsafe fn drop_capabilities() -> io::Result<()> {
    // SAFETY: the caller upholds this function's contract; every call
    // below is a system call on memory made before the fork.
    unsafe {
        /// `SECBIT_NOROOT`, `SECBIT_NO_SETUID_FIXUP`, `SECBIT_NO_CAP_AMBIENT_RAISE`
        /// and the lock bit of each, plus `SECBIT_KEEP_CAPS_LOCKED`
        /// (`linux/securebits.h`).
        const SECUREBITS: libc::c_ulong = 0b1110_1111;
        /// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
        const CAP_V3: u32 = 0x2008_0522;
        #[repr(C)]
        struct Header {
            version: u32,
            pid: libc::c_int,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        // Without CAP_SETPCAP (a user with no capabilities, where no user
        // namespace was made) these two are refused and there is nothing to
        // drop: its permitted set is already empty.
        if libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0) != 0 && errno() != libc::EPERM
        {
            return Err(io::Error::last_os_error());
        }
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) != 0 {
                match errno() {
                    libc::EINVAL => break,
                    libc::EPERM => break,
                    _ => return Err(io::Error::last_os_error()),
                }
            }
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        );
        let header = Header {
            version: CAP_V3,
            pid: 0,
        };
        let data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        check(
            libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) as libc::c_int,
        )
    }
}

/// Forks the run's first process into the PID namespace made by
/// [`NsPlan::enter`] and turns the caller into its keeper: the keeper
/// closes every descriptor (so the spawning parent sees the exec, and the
/// output pipes close with the run), waits, and leaves with the run's
/// status. When the first process ends, the kernel kills every other
/// process of the namespace, double-forked daemons included.
///
/// Returns in the new process only.
///
/// # Safety
/// Call only in a freshly forked, single-threaded child.
pub unsafe fn fork_first_process() -> io::Result<()> {
    // SAFETY: the caller upholds this function's contract; every call
    // below is a system call on memory made before the fork.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // The keeper is outside the namespace (getppid() says 0), so the
            // death signal is the only tie: the run dies with its keeper.
            check(libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ))?;
            return Ok(());
        }
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            for fd in 0..1024 {
                libc::close(fd);
            }
        }
        let mut status: libc::c_int = 0;
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && errno() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        let sig = libc::WTERMSIG(status);
        libc::signal(sig, libc::SIG_DFL);
        libc::kill(libc::getpid(), sig);
        libc::_exit(128 + sig)
    }
}
