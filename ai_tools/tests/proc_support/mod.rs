//! Watching processes from a test: the shell and spawner tests share it.

use std::path::Path;

/// Is this pid alive (and not a zombie)? Uses /proc where there is one,
/// `kill -0` elsewhere.
pub fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return std::process::Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next());
            state != Some("Z")
        }
        Err(_) => false,
    }
}
