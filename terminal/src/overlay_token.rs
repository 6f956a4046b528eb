//! The per-session secret that lets `k --overlay` open the assistant overlay
//! through an escape sequence, while bytes printed by any other program
//! (a `cat` of a hostile file) cannot.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// The environment variable carrying the token into the shell.
pub const TOKEN_ENV: &str = "KOI_SESSION_TOKEN";

/// 128 random bits as hex. `RandomState` is seeded from the OS's random
/// source once per process and perturbed per instance.
pub fn new_token() -> String {
    let half = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", half(), half())
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_long_and_distinct() {
        let (a, b) = (super::new_token(), super::new_token());
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
