//! Running a test's independent cases side by side.

/// `f` applied to every item, each on its own thread, all started before
/// the first is joined; the results come back in the items' order. A panic
/// in any case is re-raised here, with its own message.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|s| {
        let f = &f;
        // Collected first: every thread starts before the first join.
        let running: Vec<_> = items.iter().map(|item| s.spawn(move || f(item))).collect();
        running
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_items_order() {
        let squares = super::map(&[1u64, 2, 3, 4], |n| {
            std::thread::sleep(std::time::Duration::from_millis(20 * (5 - n)));
            n * n
        });
        assert_eq!(squares, [1, 4, 9, 16]);
    }

    #[test]
    #[should_panic(expected = "case 3 failed")]
    fn a_failing_case_fails_the_caller() {
        super::map(&[1, 2, 3], |n| assert!(*n != 3, "case {n} failed"));
    }
}
