//! Waiting for something to happen, the one way every test does it: poll
//! at a short interval, up to a limit, and on timeout say what was awaited
//! and what was seen last. Never a fixed sleep: a test that waits for the
//! event itself is as fast as the machine and as patient as it needs.

use std::time::{Duration, Instant};

/// How often a condition is polled.
const INTERVAL: Duration = Duration::from_millis(20);

/// Calls `attempt` until it returns `Ok`, and returns that value. `Err`
/// carries what is seen now (the screen, the panel's text), shown when
/// `limit` passes first and the test fails, waiting for `what`.
pub fn until<T>(what: &str, limit: Duration, mut attempt: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        match attempt() {
            Ok(value) => return value,
            Err(seen) if Instant::now() >= deadline => {
                assert!(
                    !seen.is_empty(),
                    "timed out after {limit:?} waiting for {what}"
                );
                panic!("timed out after {limit:?} waiting for {what}; seen last:\n{seen}");
            }
            Err(_) => std::thread::sleep(INTERVAL),
        }
    }
}

/// Polls `f` until it returns true; fails the test after `limit`.
pub fn eventually(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    until(
        what,
        limit,
        || if f() { Ok(()) } else { Err(String::new()) },
    )
}

/// Whether `f` returns true within `limit` (for a test that asserts on
/// the answer itself).
pub fn within(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(INTERVAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_returns_the_value_that_satisfied_it() {
        let mut n = 0;
        let got = until("three calls", Duration::from_secs(5), || {
            n += 1;
            if n == 3 {
                Ok(n)
            } else {
                Err(format!("{n} calls"))
            }
        });
        assert_eq!(got, 3);
    }

    #[test]
    #[should_panic(expected = "waiting for the impossible; seen last:\nstill no")]
    fn until_says_what_it_saw_when_it_gives_up() {
        until::<()>("the impossible", Duration::from_millis(50), || {
            Err("still no".into())
        });
    }

    #[test]
    fn within_answers_instead_of_failing() {
        assert!(!within(Duration::from_millis(30), || false));
        assert!(within(Duration::from_millis(30), || true));
    }
}
