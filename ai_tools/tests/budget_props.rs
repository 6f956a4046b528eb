//! Properties of the output budget: head + tail are kept, the cut is
//! reported, nothing panics on any text.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::output::head_tail;
use proptest::prelude::*;

/// Longest the cut marker can be; output stays within budget plus this.
const MARKER_SLACK: usize = 80;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn head_tail_keeps_ends_and_reports_cut(text in "(.{0,40}\n){0,300}", budget in 0usize..3000) {
        let out = head_tail(&text, budget);
        let n = text.chars().count();
        if n <= budget {
            prop_assert_eq!(&out, &text);
        } else {
            prop_assert!(out.contains("cut from the middle"));
            prop_assert!(out.chars().count() <= budget + MARKER_SLACK);
            // What is kept is a prefix and a suffix of the original.
            let marker_start = out.find("[… ").unwrap();
            let head = &out[..marker_start];
            prop_assert!(text.starts_with(head));
            let after = &out[marker_start..];
            let tail = &after[after.find("…]\n").unwrap() + "…]\n".len()..];
            prop_assert!(text.ends_with(tail));
        }
    }
}

#[test]
fn empty_and_tiny_budgets() {
    assert_eq!(head_tail("", 0), "");
    let out = head_tail("abcdef\nghijkl\n", 0);
    assert!(out.contains("cut"));
    let out = head_tail(&"x".repeat(100), 10);
    assert!(out.starts_with("xxxxxx") && out.ends_with("xxx"));
}
