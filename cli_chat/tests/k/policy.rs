//! `k policy check` agrees with the tools crate's policy table.

use std::path::Path;
use std::sync::Mutex;

use ai_tools::policy_table::{self, unescape};

use crate::common::Home;

/// The fixture the table's header describes.
fn fixture(home: &Home) -> String {
    let root = home.ws();
    let out = home.root().join("outside");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("clean")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("README.md"), "# demo\n").unwrap();
    std::fs::write(root.join("notes.txt"), "a,b\n").unwrap();
    std::fs::write(root.join(".env"), "KOI_API_KEY=sk-test\n").unwrap();
    std::fs::write(root.join(".env.example"), "KOI_API_KEY=\n").unwrap();
    std::fs::write(root.join("clean/a.txt"), "foo\n").unwrap();
    std::fs::write(out.join("plain.txt"), "plain\n").unwrap();
    std::fs::write(out.join("server.pem"), "-----BEGIN PRIVATE KEY-----\n").unwrap();
    std::os::unix::fs::symlink(&out, root.join("escape")).unwrap();
    std::os::unix::fs::symlink(out.join("server.pem"), root.join("link_to_key")).unwrap();
    out.canonicalize().unwrap().display().to_string()
}

fn code(label: &str) -> char {
    match label {
        "allow" => 'A',
        "ask" => 'Q',
        "deny" => 'D',
        other => panic!("unknown decision {other}"),
    }
}

#[test]
fn policy_check_matches_the_policy_table() {
    let home = Home::new(None);
    let out = fixture(&home);
    let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ai_tools/tests/policy_table.txt");
    let rows = policy_table::parse(&std::fs::read_to_string(&table).unwrap()).unwrap();
    assert!(rows.len() >= 150);
    let failures = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(row) = rows.get(i) else { return };
                let input = row.input.replace("@OUT@", &out);
                let mut args = vec!["policy", "check", "--all-modes", "--json"];
                let decoded;
                match row.kind.as_str() {
                    "sh" => args.extend(["--", input.as_str()]),
                    "shx" => {
                        decoded = unescape(&input);
                        args.extend(["--", decoded.as_str()]);
                    }
                    tool => args.extend(["--tool", tool, "--args", input.as_str()]),
                }
                let run = home.run(&args, None);
                assert_eq!(run.code, 0, "line {}: {}", row.line, run.stderr);
                let got: String = run
                    .events()
                    .iter()
                    .map(|v| {
                        assert_eq!(v["v"], 1);
                        code(v["verdict"]["decision"].as_str().unwrap())
                    })
                    .collect();
                if got != row.codes {
                    failures.lock().unwrap().push(format!(
                        "line {}: want {} got {got}: {} {}",
                        row.line, row.codes, row.kind, row.input
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} rows disagree:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn policy_check_text_says_why() {
    let home = Home::new(None);
    let run = home.run(
        &[
            "policy", "check", "--mode", "plan", "--", "rm", "-rf", "build",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("plan: deny — "), "{}", run.stdout);
    let run = home.run(
        &["policy", "check", "--mode", "default", "--", "rm -rf build"],
        None,
    );
    assert!(
        run.stdout.contains("would ask: rm -rf build"),
        "{}",
        run.stdout
    );
    let run = home.run(
        &["policy", "check", "--tool", "fs_read", "--args", "{"],
        None,
    );
    assert_eq!(run.code, 2);
}
