//! What this kernel offers: the Landlock ABI, whether seccomp filters
//! work, and whether a run can have namespaces of its own (where it cannot:
//! Ubuntu's AppArmor restriction on unprivileged user namespaces, a
//! container's seccomp profile). Asked once per process; the answer does
//! not change while it runs.

use std::path::Path;
use std::sync::OnceLock;

/// What the kernel supports, or why the sandbox cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock with this ABI version, and seccomp filters.
    Available {
        /// The kernel's Landlock ABI (1 = Linux 5.13; 6 adds scopes).
        landlock_abi: i32,
        /// How secrets are hidden: namespaces, or Landlock alone.
        isolation: Isolation,
    },
    /// Something is missing; the text says what, for the user.
    Unavailable(String),
}

/// How a confined run hides secrets and keeps its processes together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// A mount namespace of its own (hidden paths are empty mounts) and a
    /// PID namespace (every process ends with the run); through a user
    /// namespace unless koi runs as root.
    Namespaces,
    /// Namespaces were refused (the text says how): Landlock alone makes
    /// the hidden paths unreadable.
    LandlockOnly(String),
}

impl Support {
    /// The Landlock ABI, when the sandbox can be used.
    pub fn landlock_abi(&self) -> Option<i32> {
        match self {
            Support::Available { landlock_abi, .. } => Some(*landlock_abi),
            Support::Unavailable(_) => None,
        }
    }
}

/// The kernel's answer, probed on first use.
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(probe)
}

#[cfg(target_os = "linux")]
fn probe() -> Support {
    let abi = match landlock_abi() {
        Ok(abi) => abi,
        Err(why) => return Support::Unavailable(why),
    };
    if let Err(why) = seccomp_filters() {
        return Support::Unavailable(why);
    }
    let isolation = match namespaces() {
        Ok(()) => Isolation::Namespaces,
        Err(why) => Isolation::LandlockOnly(why),
    };
    Support::Available {
        landlock_abi: abi,
        isolation,
    }
}

/// Whether a run can enter namespaces of its own: a child does exactly
/// what a run's child does (the namespaces, the maps, a private `/`, an
/// empty tmpfs bound over a path) before it execs `true`.
#[cfg(target_os = "linux")]
pub fn namespaces() -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let dir = std::env::temp_dir().join(format!("koi-probe-{}", std::process::id()));
    let _ = std::fs::create_dir_all(dir.join("hidden"));
    let hidden = super::hidden::HiddenPaths::new([dir.join("hidden")], Path::new("/nonexistent"));
    let plan = super::namespace::NsPlan::new(super::namespace::Owner::current(), &dir, &hidden)
        .map_err(|e| e.to_string());
    let result = plan.and_then(|plan| {
        let mut cmd = std::process::Command::new(TRUE_PROGRAM);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: the closure runs in the child between fork and exec and
        // makes only system calls on memory made before the fork.
        unsafe {
            cmd.pre_exec(move || plan.enter());
        }
        match cmd.status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!("a probe in new namespaces ended with {s}")),
            Err(e) => Err(format!("namespaces are refused here ({e})")),
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A program that exists on every Linux system and does nothing.
#[cfg(target_os = "linux")]
const TRUE_PROGRAM: &str = "/bin/true";

#[cfg(not(target_os = "linux"))]
fn probe() -> Support {
    Support::Unavailable("Landlock and seccomp exist only on Linux".into())
}

/// `LANDLOCK_CREATE_RULESET_VERSION` (`linux/landlock.h`): asks
/// `landlock_create_ruleset` for the ABI version instead of a ruleset.
#[cfg(target_os = "linux")]
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// The Landlock ABI version, or why there is none.
#[cfg(target_os = "linux")]
pub fn landlock_abi() -> Result<i32, String> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call
    // reads no memory and only returns the version (or an error).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if v >= 1 {
        return i32::try_from(v).map_err(|_| format!("Landlock reported ABI {v}"));
    }
    Err(match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ENOSYS) => "this kernel has no Landlock (Linux 5.13 or later is needed)".into(),
        Some(libc::EOPNOTSUPP) => {
            "Landlock is built into this kernel but not enabled (add landlock to the lsm= boot parameter)"
                .into()
        }
        _ => format!(
            "Landlock is not usable: {}",
            std::io::Error::last_os_error()
        ),
    })
}

/// `PR_GET_SECCOMP` (`linux/prctl.h`): fails with EINVAL on a kernel
/// built without seccomp.
#[cfg(target_os = "linux")]
const PR_GET_SECCOMP: libc::c_int = 21;

/// Whether seccomp filters that answer with an errno can be installed.
#[cfg(target_os = "linux")]
fn seccomp_filters() -> Result<(), String> {
    if !super::seccomp::ARCH_SUPPORTED {
        return Err("koi has no seccomp filter for this CPU architecture".into());
    }
    // SAFETY: PR_GET_SECCOMP takes no pointer and only reports the mode.
    if unsafe { libc::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err("this kernel has no seccomp".into());
    }
    for action in [libc::SECCOMP_RET_ERRNO, libc::SECCOMP_RET_KILL_PROCESS] {
        // SAFETY: the kernel reads one u32 from a pointer to a live local.
        let ok = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_GET_ACTION_AVAIL,
                0u32,
                &action as *const u32,
            )
        } == 0;
        if !ok {
            return Err(format!(
                "this kernel's seccomp lacks filter action {action:#x} (Linux 4.14 or later is needed)"
            ));
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_stable_and_consistent() {
        let a = support();
        assert_eq!(a, support());
        if let Support::Available {
            landlock_abi: abi, ..
        } = a
        {
            assert!(*abi >= 1);
            assert_eq!(landlock_abi().ok(), Some(*abi));
        }
        println!("sandbox support here: {a:?}");
    }
}
