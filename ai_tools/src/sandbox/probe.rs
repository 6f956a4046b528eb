//! What this kernel offers: the Landlock ABI and whether seccomp filters
//! work. Asked once per process; the answer does not change while it runs.

use std::sync::OnceLock;

/// What the kernel supports, or why the sandbox cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock with this ABI version, and seccomp filters.
    Available {
        /// The kernel's Landlock ABI (1 = Linux 5.13; 6 adds scopes).
        landlock_abi: i32,
    },
    /// Something is missing; the text says what, for the user.
    Unavailable(String),
}

impl Support {
    /// The Landlock ABI, when the sandbox can be used.
    pub fn landlock_abi(&self) -> Option<i32> {
        match self {
            Support::Available { landlock_abi } => Some(*landlock_abi),
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
    Support::Available { landlock_abi: abi }
}

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
        if let Support::Available { landlock_abi: abi } = a {
            assert!(*abi >= 1);
            assert_eq!(landlock_abi().ok(), Some(*abi));
        }
        println!("sandbox support here: {a:?}");
    }
}
