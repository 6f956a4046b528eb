//! `k mcp list | add | remove` on a real config file, `k policy check
//! --tool mcp__…` against real servers, and a question whose request
//! declares `mcp_call`.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::Home;

fn bad_server() -> String {
    koi_testkit::mcp_servers::dir()
        .join("bad_server.py")
        .display()
        .to_string()
}

fn filesystem_server() -> String {
    koi_testkit::mcp_servers::reference("server-filesystem")
        .display()
        .to_string()
}

fn codes(home: &Home, tool: &str, args: &str) -> (String, Vec<serde_json::Value>) {
    let events = home.policy_verdicts(tool, args);
    let codes = events
        .iter()
        .map(|v| match v["verdict"]["decision"].as_str().unwrap() {
            "allow" => 'A',
            "ask" => 'Q',
            _ => 'D',
        })
        .collect();
    (codes, events)
}

#[test]
fn add_list_check_remove() {
    let home = Home::new(None);
    home.write_config("# mine\n[ai]\nmodel = \"m\"\n");
    let run = home.run(&["mcp", "list"], None);
    assert!(
        run.stdout.contains("no MCP servers configured"),
        "{}",
        run.stdout
    );

    let bad = bad_server();
    let run = home.run(&["mcp", "add", "bad", "--", "python3", &bad, "paged"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ws = home.ws().canonicalize().unwrap();
    std::fs::write(ws.join("a.txt"), "hello").unwrap();
    let fs = filesystem_server();
    let ws_s = ws.display().to_string();
    let run = home.run(
        &[
            "mcp",
            "add",
            "fs",
            "--trust",
            "annotations",
            "--",
            "node",
            &fs,
            &ws_s,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let again = home.run(&["mcp", "add", "fs", "--", "x"], None);
    assert_ne!(again.code, 0);
    assert!(
        again.stderr.contains("already configured"),
        "{}",
        again.stderr
    );
    let text = std::fs::read_to_string(home.config_dir().join("koi.toml")).unwrap();
    assert!(text.starts_with("# mine\n[ai]\nmodel = \"m\"\n"), "{text}");

    let run = home.run(&["mcp", "list"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("bad: ready (bad-paged 1, MCP 2025-11-25)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("tools (4): big, grow, ok, stall"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("fs: ready (secure-filesystem-server"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("trust: annotations"), "{}", run.stdout);

    // The gate, explained: a trusted read-only tool runs everywhere, an
    // untrusted one asks or is denied.
    let read = serde_json::json!({"path": ws.join("a.txt")}).to_string();
    let (c, _) = codes(&home, "mcp__fs__read_text_file", &read);
    assert_eq!(c, "AAAAA");
    let (c, events) = codes(
        &home,
        "mcp__fs__write_file",
        &serde_json::json!({"path": ws.join("b"), "content": "x"}).to_string(),
    );
    assert_eq!(c, "QQDDA");
    let ask = &events[0]["verdict"];
    assert!(
        ask["summary"]
            .as_str()
            .unwrap()
            .starts_with("MCP fs › write_file"),
        "{ask}"
    );
    assert!(
        ask["reason"].as_str().unwrap().contains("tool: write_file"),
        "{ask}"
    );
    let (c, events) = codes(&home, "mcp__bad__ok", "{}");
    assert_eq!(c, "QQDDA");
    assert!(events[2]["verdict"]["reason"]
        .as_str()
        .unwrap()
        .contains("plan mode is read-only"));
    let (c, _) = codes(&home, "mcp__bad__missing", "{}");
    assert_eq!(c, "DDDDD", "an unknown MCP tool is refused");

    let run = home.run(&["mcp", "remove", "bad"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = home.run(&["mcp", "list", "--json"], None);
    let names: Vec<String> = run
        .events()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["fs"]);
}

#[test]
fn a_question_declares_mcp_call_when_a_server_is_configured() {
    let server = FakeProvider::start([ChatStream::new().text("hi").stop().reply()]);
    let home = Home::new(Some(&server));
    let bad = bad_server();
    let run = home.run(&["mcp", "add", "slow", "--", "python3", &bad, "slow"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The server never answers initialize here (nothing creates its
    // ./release): the question waits the bound, then goes out without it.
    let cfg = home.config_dir().join("koi.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    home.write_config(&format!("{text}\n[mcp]\nstartup_wait_s = 0.5\n"));
    let run = home.run(&["hello"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("MCP server slow not ready after 0.5 s"),
        "{}",
        run.stderr
    );
    let body = server.requests()[0].json();
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"mcp_call"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("mcp__slow")),
        "{names:?}"
    );
    server.finish();
}

#[test]
fn config_shows_which_agents_md_files_apply() {
    let home = Home::new(None);
    let run = home.run(&["config", "--json"], None);
    let row = |run: &crate::common::Run| {
        run.events()[0]["config"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == "agents_md")
            .unwrap()["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(row(&run), "none");
    std::fs::write(home.config_dir().join("AGENTS.md"), "global").unwrap();
    std::fs::write(home.ws().join("AGENTS.md"), "here!").unwrap();
    let run = home.run(&["config", "--json"], None);
    let value = row(&run);
    let global = home.config_dir().join("AGENTS.md").display().to_string();
    let here = home
        .ws()
        .canonicalize()
        .unwrap()
        .join("AGENTS.md")
        .display()
        .to_string();
    assert_eq!(value, format!("{global} (6 bytes), {here} (5 bytes)"));
}
