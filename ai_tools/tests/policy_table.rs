//! The policy table: every row's expected decision in every mode, plus the
//! usability measure (safe read-only commands auto-approved) and the safety
//! measure (writes auto-approved: must be zero).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::policy_table::{self, code, Call, Row};
use ai_tools::{policy, Decision, Mode, Registry, RegistryConfig, Workspace};

struct Fixture {
    _dir: tempfile::TempDir,
    ws: Workspace,
    out: String,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let out = policy_table::write_fixture(&root, &dir.path().join("outside")).unwrap();
    let ws = Workspace::new(&root).unwrap();
    Fixture { _dir: dir, ws, out }
}

fn decide(reg: &Registry, fx: &Fixture, row: &Row, mode: Mode) -> Decision {
    match row.call(&fx.out) {
        Call::Command(command) => policy::check_command_in(&command, mode, &fx.ws),
        Call::Tool { name, args } => {
            let args: serde_json::Value = serde_json::from_str(&args)
                .unwrap_or_else(|e| panic!("line {}: bad json: {e}", row.line));
            reg.decide(name, &args, mode)
        }
    }
}

#[test]
fn policy_table() {
    let fx = fixture();
    // The table is the policy's own: where no sandbox exists (what the
    // sandbox adds, contained runs, is everyday.rs's subject).
    let reg = Registry::standard(RegistryConfig::new(fx.ws.clone())).with_sandbox_support(
        ai_tools::sandbox::Support::Unavailable("pinned by the table".into()),
    );
    let rows = policy_table::load().unwrap();
    assert!(rows.len() >= 150, "the table must hold at least 150 rows");
    let mut failures = Vec::new();
    let (mut ro_total, mut ro_allowed) = (0, 0);
    let (mut w_total, mut w_allowed) = (0, 0);
    let mut unsafe_allowed = 0;
    let mut deciding = std::time::Duration::ZERO;
    let mut shell_times = Vec::new();
    for row in &rows {
        let started = std::time::Instant::now();
        let got: Vec<Decision> = Mode::ALL
            .iter()
            .map(|m| decide(&reg, &fx, row, *m))
            .collect();
        let took = started.elapsed();
        deciding += took;
        if matches!(row.call(&fx.out), Call::Command(_)) {
            shell_times.push(took / Mode::ALL.len() as u32);
        }
        let got_codes: String = got.iter().map(code).collect();
        if let Call::Command(command) = row.call(&fx.out) {
            let effect = ai_tools::Effect::Shell {
                command,
                cwd: fx.ws.root().to_path_buf(),
            };
            let policy::Judgement {
                decision: d, proof, ..
            } = policy::judge(&effect, Mode::Default, &fx.ws);
            assert_eq!(code(&d), code(&got[0]), "line {}: judge", row.line);
            assert_eq!(proof, policy::proof(&effect, &fx.ws), "line {}", row.line);
            // The sandbox follows the proof: a proven command must be one
            // the table lets run, and never a write.
            if proof == policy::Proof::ReadOnly {
                assert!(
                    got[0].is_allow() && row.class != "w",
                    "line {}: proven",
                    row.line
                );
            }
        }
        let want = row.codes.clone();
        if got_codes != want {
            let why: Vec<String> = got
                .iter()
                .map(|d| match d {
                    Decision::Allow => "allow".to_string(),
                    Decision::Ask { detail, .. } => format!("ask: {detail}"),
                    Decision::Deny { reason } => format!("deny: {reason}"),
                })
                .collect();
            failures.push(format!(
                "line {} [{} {}] want {want} got {got_codes}\n    {}",
                row.line,
                row.kind,
                row.input,
                why.join("\n    ")
            ));
        }
        match row.class.as_str() {
            "ro" => {
                ro_total += 1;
                if got[0].is_allow() {
                    ro_allowed += 1;
                }
            }
            "w" => {
                w_total += 1;
                // Writes never run unasked in default, plan or dont-ask.
                if got[0].is_allow() || got[2].is_allow() || got[3].is_allow() {
                    w_allowed += 1;
                }
            }
            _ => {}
        }
        // Any row the table says must not run unasked, that did.
        if !want.starts_with('A') && got[0].is_allow() {
            unsafe_allowed += 1;
        }
    }
    let per_decision = deciding / (rows.len() * Mode::ALL.len()) as u32;
    println!(
        "policy table: {} rows; safe read-only auto-approved in default mode: {ro_allowed}/{ro_total} \
         ({:.1}%); writes auto-approved (default/plan/dont-ask): {w_allowed}/{w_total}; \
         unsafe auto-approvals: {unsafe_allowed}; {:.0} µs per decision ({} build)",
        rows.len(),
        100.0 * ro_allowed as f64 / ro_total.max(1) as f64,
        per_decision.as_secs_f64() * 1e6,
        if cfg!(debug_assertions) { "debug" } else { "release" },
    );
    shell_times.sort();
    let pct = |p: usize| shell_times[(shell_times.len() - 1) * p / 100].as_secs_f64() * 1e6;
    println!(
        "policy table: shell commands: median {:.0} µs, p95 {:.0} µs per decision",
        pct(50),
        pct(95)
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(w_allowed, 0, "a write was auto-approved");
    assert_eq!(unsafe_allowed, 0, "a row that must ask was auto-approved");
    // Usability: the proof may abstain on some safe commands (they are in
    // the table as asks), but at least 95% must just run.
    assert!(
        ro_allowed * 100 >= ro_total * 95,
        "only {ro_allowed}/{ro_total} safe read-only commands were auto-approved"
    );
}

/// The second layer follows the first: every shell row the policy allows
/// in default mode without asking is one it proved read-only, so it runs
/// under the read-only sandbox.
#[test]
fn allowed_shell_rows_run_read_only() {
    use ai_tools::sandbox::Support;
    use ai_tools::Level;
    let fx = fixture();
    // Pinned, so the mapping is checked on any kernel.
    let reg = Registry::standard(RegistryConfig::new(fx.ws.clone())).with_sandbox_support(
        Support::Available {
            landlock_abi: 7,
            isolation: ai_tools::sandbox::Isolation::Namespaces,
        },
    );
    let rows = policy_table::load().unwrap();
    let (mut checked, mut wrong) = (0, Vec::new());
    for row in &rows {
        let Call::Command(command) = row.call(&fx.out) else {
            continue;
        };
        if !policy::check_command_in(&command, Mode::Default, &fx.ws).is_allow() {
            continue;
        }
        checked += 1;
        let args = serde_json::json!({ "command": command });
        let level = reg.sandbox_for("shell_exec", &args).and_then(|p| p.level());
        if level != Some(Level::ReadOnly) {
            wrong.push(format!(
                "line {}: {command:?} would run {level:?}",
                row.line
            ));
        }
    }
    println!("policy table: {checked} shell rows allowed in default mode, all run read-only");
    assert!(checked >= 50, "only {checked} allowed shell rows");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
