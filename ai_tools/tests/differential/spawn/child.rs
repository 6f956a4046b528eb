//! The code that runs after the fork: raw system calls on memory the
//! [`Plan`] prepared, no allocation, failures reported as `[step, errno]`
//! on the status pipe.

use std::ffi::{c_int, c_ulong};
use std::os::fd::RawFd;

use super::{last_errno, Plan, Step};

/// `mount_setattr(2)`'s flag to apply the change to a whole subtree.
const AT_RECURSIVE: c_int = 0x8000;
/// `mount_setattr(2)`'s read-only mount attribute.
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// The argument of `mount_setattr(2)`, as the kernel lays it out.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Report `step` failing with the current errno, then exit.
///
/// # Safety
/// Call only in a forked child.
unsafe fn fail(status: RawFd, step: Step) -> ! {
    let errno = last_errno().to_le_bytes();
    let msg = [step.code(), errno[0], errno[1], errno[2], errno[3]];
    // SAFETY: writing our stack buffer to the report pipe, then exiting
    // without running any of the parent's atexit handlers.
    unsafe {
        libc::write(status, msg.as_ptr().cast(), msg.len());
        libc::_exit(126)
    }
}

/// Write `data` to the file at `path` (a `/proc/self/…` control file).
///
/// # Safety
/// Call only in a forked child.
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> bool {
    // SAFETY: path is NUL-terminated; data is a slice we borrow.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        n == data.len() as isize
    }
}

/// Map the caller to `uid_map`/`gid_map` in the user namespace it just
/// entered (an unprivileged caller may map only its own ids, and only
/// after giving up `setgroups`).
///
/// # Safety
/// Call only in a forked child.
unsafe fn map_self(uid_map: &[u8], gid_map: &[u8]) -> bool {
    // SAFETY: writes to this process's own control files.
    unsafe {
        write_file(c"/proc/self/setgroups", b"deny")
            && write_file(c"/proc/self/uid_map", uid_map)
            && write_file(c"/proc/self/gid_map", gid_map)
    }
}

/// Fork with the bare system call: no `atfork` handlers run in a child
/// that may hold copies of other threads' locks.
///
/// # Safety
/// Call only in a forked child.
unsafe fn fork_raw() -> libc::pid_t {
    // SAFETY: clone with only SIGCHLD and no stack is fork(2).
    let r = unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::SIGCHLD as c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    libc::pid_t::try_from(r).unwrap_or(-1)
}

/// Wait for `pid`, then exit with its exit code (or 128 + its signal).
///
/// # Safety
/// Call only in a forked child.
unsafe fn wait_and_exit(pid: libc::pid_t) -> ! {
    let mut status: c_int = 0;
    loop {
        // SAFETY: waitpid writes the status into our local.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r < 0 && last_errno() != libc::EINTR {
            // SAFETY: exiting the child.
            unsafe { libc::_exit(125) }
        }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    // SAFETY: exiting the child.
    unsafe { libc::_exit(code) }
}

/// # Safety
/// Call only in a freshly forked child of the multithreaded test process.
pub(super) unsafe fn outer(plan: &Plan, status: RawFd) -> ! {
    // SAFETY: the block makes raw system calls on memory `plan` owns.
    unsafe {
        // Other threads may have forked too: keep only stdio and the
        // report pipe, so no jail holds another jail's pipe open.
        let keep = u32::try_from(status).unwrap_or(u32::MAX);
        if keep > 3 {
            libc::syscall(libc::SYS_close_range, 3u32, keep - 1, 0u32);
        }
        libc::syscall(
            libc::SYS_close_range,
            keep.saturating_add(1),
            u32::MAX,
            0u32,
        );

        if let Some(id) = plan.drop_to {
            if libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) != 0
                || libc::syscall(libc::SYS_setresgid, id, id, id) != 0
                || libc::syscall(libc::SYS_setresuid, id, id, id) != 0
            {
                fail(status, Step::DropIds);
            }
        }
        // Both are cleared by the id change: the parent-death signal, and
        // the dumpable flag without which /proc/self's control files
        // belong to root and the id maps below cannot be written.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::prctl(libc::PR_SET_DUMPABLE, 1);
        let namespaces = libc::CLONE_NEWUSER
            | libc::CLONE_NEWNS
            | libc::CLONE_NEWNET
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWCGROUP;
        if libc::unshare(namespaces) != 0 {
            fail(status, Step::Unshare);
        }
        if !map_self(&plan.uid_map, &plan.gid_map) {
            fail(status, Step::IdMaps);
        }
        // Nothing mounted here may reach the host's mount table.
        if libc::mount(
            c"none".as_ptr(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            fail(status, Step::MakePrivate);
        }
        // The state directory becomes its own mount so that it alone can be
        // made writable again below.
        if libc::mount(
            plan.state.as_ptr(),
            plan.state.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        ) != 0
        {
            fail(status, Step::BindState);
        }
        let read_only = MountAttr {
            attr_set: MOUNT_ATTR_RDONLY,
            attr_clr: 0,
            propagation: 0,
            userns_fd: 0,
        };
        if libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c"/".as_ptr(),
            AT_RECURSIVE,
            &read_only as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) != 0
        {
            fail(status, Step::ReadOnly);
        }
        let writable = MountAttr {
            attr_set: 0,
            attr_clr: MOUNT_ATTR_RDONLY,
            propagation: 0,
            userns_fd: 0,
        };
        if libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            plan.state.as_ptr(),
            0,
            &writable as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) != 0
        {
            fail(status, Step::StateWritable);
        }
        for (i, m) in plan.mounts.iter().enumerate() {
            if m.apply() != 0 {
                fail(status, Step::Mount(u8::try_from(i).unwrap_or(u8::MAX)));
            }
        }
        let pid = fork_raw();
        if pid < 0 {
            fail(status, Step::ForkInit);
        }
        if pid == 0 {
            init(plan, status);
        }
        libc::close(status);
        wait_and_exit(pid)
    }
}

/// Pid 1 of the new pid namespace, which becomes the tracer: a process
/// inside cannot kill pid 1 with a signal it does not handle, and if the
/// tracer dies anyway the kernel kills every tracee with it, so nothing
/// ever runs on untraced.
///
/// # Safety
/// Call only in a forked child.
unsafe fn init(plan: &Plan, status: RawFd) -> ! {
    // SAFETY: raw system calls on memory `plan` owns.
    unsafe {
        // The tracer names fds by reading /proc/PID/fd: that needs a /proc
        // of this pid namespace.
        if libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        ) != 0
        {
            fail(status, Step::MountProc);
        }
        for l in &plan.limits {
            let lim = libc::rlimit {
                rlim_cur: l.soft,
                rlim_max: l.hard,
            };
            if libc::setrlimit(l.resource, &lim) != 0 {
                fail(status, Step::Rlimit);
            }
        }
        // One more user namespace, in which this process is an ordinary
        // user: it holds no capability over the jail's mounts, so it cannot
        // make the read-only tree writable again.
        if libc::unshare(libc::CLONE_NEWUSER) != 0 {
            fail(status, Step::NestedUser);
        }
        if !map_self(&plan.inner_uid_map, &plan.inner_gid_map) {
            fail(status, Step::NestedUser);
        }
        let (uid, gid) = plan.inner_ids;
        if libc::syscall(libc::SYS_setresgid, gid, gid, gid) != 0
            || libc::syscall(libc::SYS_setresuid, uid, uid, uid) != 0
        {
            fail(status, Step::SetIds);
        }
        // After the id change, which clears it: when `outer` dies (killed
        // at the deadline), so does this pid 1 and the whole namespace.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            fail(status, Step::NoNewPrivs);
        }
        if libc::chdir(plan.cwd.as_ptr()) != 0 {
            fail(status, Step::Chdir);
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
        let out = libc::open(
            plan.output.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
            0o600,
        );
        if null < 0
            || out < 0
            || libc::dup2(null, 0) < 0
            || libc::dup2(out, 1) < 0
            || libc::dup2(out, 2) < 0
        {
            fail(status, Step::Stdio);
        }
        for fd in [null, out] {
            if fd > 2 {
                libc::close(fd);
            }
        }
        libc::execve(
            plan.program.as_ptr(),
            plan.argv_ptrs.as_ptr(),
            plan.envp_ptrs.as_ptr(),
        );
        fail(status, Step::Exec)
    }
}
