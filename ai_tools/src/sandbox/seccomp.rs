//! The seccomp filter: what Landlock cannot say. Landlock rules paths and
//! TCP ports; it leaves socket creation (UDP, DNS, unix sockets such as
//! `docker.sock`; netlink stays open for reading), the metadata calls (`chmod`, `chown`, `utime`,
//! extended attributes) and `ioctl`s on regular files open. A small
//! classic-BPF program, built in the parent and installed after fork,
//! refuses those with an errno, so the program sees a plain failure.
//!
//! The program is a straight list: check the architecture, then compare
//! the syscall number with each refused one. A few dozen instructions cost
//! nothing next to the syscalls they guard.

use libc::sock_filter;

/// `AUDIT_ARCH_*` of the architecture this build runs on: the filter only
/// knows this architecture's syscall numbers, so a syscall made through
/// another ABI (a 32-bit program's `int 0x80`) cannot be vetted and ends
/// the process (`linux/audit.h`: machine number | 64-bit | little-endian).
#[cfg(target_arch = "x86_64")]
const NATIVE_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const NATIVE_ARCH: u32 = 0xC000_00B7;

/// x86-64's x32 ABI marks its syscall numbers with this bit; they reach
/// the same kernel code under other numbers, so any of them is refused.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Offsets in `struct seccomp_data` (`linux/seccomp.h`): the syscall
/// number, the architecture, and the low 32 bits of the second argument
/// (little-endian), which is where `ioctl` keeps its request number.
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const OFFSET_ARG0_LOW: u32 = 16;
const OFFSET_ARG1_LOW: u32 = 24;

/// `fchmodat2(2)` (Linux 6.6), `setxattrat(2)` and `removexattrat(2)`
/// (Linux 6.13): the same number on every architecture (the unified
/// syscall table), and not yet in every libc release.
const SYS_FCHMODAT2: u32 = 452;
const SYS_SETXATTRAT: u32 = 463;
const SYS_REMOVEXATTRAT: u32 = 466;

/// `FS_IOC_FSSETXATTR` (`_IOW('X', 32, struct fsxattr)`): sets inode flags
/// such as immutable or append-only through a read-only descriptor.
const FS_IOC_FSSETXATTR: u32 = 0x401C_5820;

/// The first Landlock ABI that rules `truncate(2)` by path; before it,
/// seccomp refuses the call instead.
const LANDLOCK_ABI_TRUNCATE: i32 = 3;

/// What the filter is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Proven read-only: no sockets, no metadata changes, no io_uring
    /// (its requests run inside the kernel without passing this filter).
    ReadOnly {
        /// The Landlock ABI in force, to fill what an older one misses.
        landlock_abi: i32,
    },
    /// Approved: the network and metadata stay open; only typing into the
    /// user's terminal is refused.
    WorkspaceWrite,
}

/// Whether this build has a filter for the CPU it runs on.
pub const ARCH_SUPPORTED: bool = cfg!(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    target_endian = "little"
));

fn stmt(code: u32, k: u32) -> sock_filter {
    // The BPF opcodes all fit 16 bits (linux/bpf_common.h).
    sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

fn load(offset: u32) -> sock_filter {
    stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset)
}

fn ret(action: u32) -> sock_filter {
    stmt(libc::BPF_RET | libc::BPF_K, action)
}

fn errno(e: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (e as u32 & libc::SECCOMP_RET_DATA)
}

/// `if A == k { return action }` as two instructions.
fn refuse_if(out: &mut Vec<sock_filter>, k: u32, action: u32) {
    out.push(jump(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, k, 0, 1));
    out.push(ret(action));
}

/// Syscall numbers as the filter compares them (the kernel's `nr` is 32 bits).
fn nr(n: libc::c_long) -> u32 {
    n as u32
}

/// Syscalls refused with `EPERM` at the read-only level: every way to
/// change a file's mode, owner, times or extended attributes, which
/// Landlock does not rule.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn metadata_calls() -> Vec<u32> {
    let mut v = vec![
        nr(libc::SYS_fchmod),
        nr(libc::SYS_fchmodat),
        SYS_FCHMODAT2,
        nr(libc::SYS_fchown),
        nr(libc::SYS_fchownat),
        nr(libc::SYS_utimensat),
        nr(libc::SYS_setxattr),
        nr(libc::SYS_lsetxattr),
        nr(libc::SYS_fsetxattr),
        SYS_SETXATTRAT,
        nr(libc::SYS_removexattr),
        nr(libc::SYS_lremovexattr),
        nr(libc::SYS_fremovexattr),
        SYS_REMOVEXATTRAT,
    ];
    // The legacy path-based calls exist only on x86-64.
    #[cfg(target_arch = "x86_64")]
    v.extend([
        nr(libc::SYS_chmod),
        nr(libc::SYS_chown),
        nr(libc::SYS_lchown),
        nr(libc::SYS_utime),
        nr(libc::SYS_utimes),
        nr(libc::SYS_futimesat),
    ]);
    v
}

/// The filter for `profile`, or `None` where this build has none for the
/// CPU (the caller then reports seccomp as unavailable).
pub fn program(profile: Profile) -> Option<Box<[sock_filter]>> {
    build(profile)
}

#[cfg(not(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    target_endian = "little"
)))]
fn build(_profile: Profile) -> Option<Box<[sock_filter]>> {
    None
}

#[cfg(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    target_endian = "little"
))]
fn build(profile: Profile) -> Option<Box<[sock_filter]>> {
    let eperm = errno(libc::EPERM);
    let mut p = vec![
        load(OFFSET_ARCH),
        jump(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            NATIVE_ARCH,
            1,
            0,
        ),
        ret(libc::SECCOMP_RET_KILL_PROCESS),
        load(OFFSET_NR),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        p.push(jump(
            libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K,
            X32_SYSCALL_BIT,
            0,
            1,
        ));
        p.push(ret(eperm));
    }
    let mut ioctls = vec![libc::TIOCSTI as u32];
    if let Profile::ReadOnly { landlock_abi } = profile {
        // Sockets: netlink only, so `ip addr` and `ss` can ask the kernel;
        // without CAP_NET_ADMIN (dropped) such a socket can only read.
        // Anything else gets EACCES, as Landlock answers a refused TCP
        // connect, so a program prints "Permission denied" whichever layer
        // refused it.
        p.push(jump(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            nr(libc::SYS_socket),
            0,
            4,
        ));
        p.push(load(OFFSET_ARG0_LOW));
        p.push(jump(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            libc::AF_NETLINK as u32,
            0,
            1,
        ));
        p.push(ret(libc::SECCOMP_RET_ALLOW));
        p.push(ret(errno(libc::EACCES)));
        for call in metadata_calls() {
            refuse_if(&mut p, call, eperm);
        }
        for call in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            refuse_if(&mut p, nr(call), eperm);
        }
        if landlock_abi < LANDLOCK_ABI_TRUNCATE {
            refuse_if(&mut p, nr(libc::SYS_truncate), eperm);
        }
        ioctls.push(libc::FS_IOC_SETFLAGS as u32);
        ioctls.push(FS_IOC_FSSETXATTR);
    }
    // ioctl: look at the request number only for ioctl itself.
    let body = 1 + 2 * ioctls.len();
    let skip = u8::try_from(body).ok()?;
    p.push(jump(
        libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
        nr(libc::SYS_ioctl),
        0,
        skip,
    ));
    p.push(load(OFFSET_ARG1_LOW));
    for request in ioctls {
        refuse_if(&mut p, request, eperm);
    }
    p.push(ret(libc::SECCOMP_RET_ALLOW));
    Some(p.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_end_in_allow_and_fit_the_kernel_limit() {
        if !ARCH_SUPPORTED {
            return;
        }
        for profile in [
            Profile::ReadOnly { landlock_abi: 1 },
            Profile::ReadOnly { landlock_abi: 7 },
            Profile::WorkspaceWrite,
        ] {
            let p = program(profile).unwrap_or_default();
            assert!(!p.is_empty());
            // BPF_MAXINSNS is 4096.
            assert!(p.len() < 4096);
            let last = p[p.len() - 1];
            assert_eq!(last.k, libc::SECCOMP_RET_ALLOW);
        }
        let old = program(Profile::ReadOnly { landlock_abi: 1 }).unwrap_or_default();
        let new = program(Profile::ReadOnly { landlock_abi: 7 }).unwrap_or_default();
        assert_eq!(
            old.len(),
            new.len() + 2,
            "truncate is refused only before ABI 3"
        );
    }
}
