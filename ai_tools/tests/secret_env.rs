//! Secrets never reach a subprocess: `env` through shell_exec shows neither
//! KOI_API_KEY nor a configured key variable, by name or by value. Its own
//! test binary because it sets process environment variables.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};
use serde_json::json;

#[test]
fn env_does_not_show_secrets() {
    std::env::set_var("KOI_API_KEY", "sk-koi-very-secret-1234");
    std::env::set_var("MY_LLM_CREDS", "configured-secret-5678");
    std::env::set_var("OPENAI_API_KEY", "sk-openai-secret-9999");
    std::env::set_var("KOI_TEST_HARMLESS_VISIBLE", "1");
    std::env::set_var("PLAIN_VALUE_FOR_TEST", "visible-value");
    // Secret by value only: the name says nothing.
    std::env::set_var("MYAPP_DB_URL", "postgres://u:dbpass-4242@db.internal/app");
    std::env::set_var("MYAPP_UPLOAD", "ghp_0123456789abcdefABCDEF0123");
    std::env::set_var("MYAPP_DOCS", "https://docs.example.com/a");
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = RegistryConfig::new(Workspace::new(dir.path()).unwrap());
    cfg.secret_env_vars = vec!["MY_LLM_CREDS".into()];
    let reg = Registry::standard(cfg);
    let c = CancelToken::new();
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "env; printenv KOI_API_KEY; echo \"[$MY_LLM_CREDS]\""}),
            &c,
        )
        .unwrap();
    for text in [&out.for_model, &out.full] {
        for secret in [
            "KOI_API_KEY",
            "sk-koi-very-secret-1234",
            "MY_LLM_CREDS",
            "configured-secret-5678",
            "OPENAI_API_KEY",
            "sk-openai-secret-9999",
            "MYAPP_DB_URL",
            "dbpass-4242",
            "MYAPP_UPLOAD",
            "ghp_0123456789abcdefABCDEF0123",
        ] {
            assert!(!text.contains(secret), "{secret} leaked:\n{text}");
        }
    }
    assert!(
        out.full.contains("PLAIN_VALUE_FOR_TEST=visible-value"),
        "{}",
        out.full
    );
    assert!(out.full.contains("[]"));
    assert!(
        out.full.contains("MYAPP_DOCS=https://docs.example.com/a"),
        "{}",
        out.full
    );
    // Even a secret value reaching output another way is redacted.
    std::fs::write(
        dir.path().join("leak.txt"),
        "token sk-koi-very-secret-1234\n",
    )
    .unwrap();
    let out = reg
        .run("shell_exec", &json!({"command": "cat leak.txt"}), &c)
        .unwrap();
    assert!(!out.full.contains("sk-koi-very-secret-1234"));
    assert!(out.full.contains("[redacted]"));
    // Reversed, base64 (wherever it starts), hex and URL-encoded too.
    let spellings = [
        "4321-terces-yrev-iok-ks",
        "c2sta29pLXZlcnktc2VjcmV0LTEyMzQ=",
        "eHNrLWtvaS12ZXJ5LXNlY3JldC0xMjM0",
        "736b2d6b6f692d766572792d7365637265742d31323334",
        "736B2D6B6F692D766572792D7365637265742D31323334",
    ];
    std::fs::write(dir.path().join("leak2.txt"), spellings.join("\n")).unwrap();
    let out = reg
        .run("shell_exec", &json!({"command": "cat leak2.txt"}), &c)
        .unwrap();
    for (i, s) in spellings.iter().enumerate() {
        let kept = if i == 1 || i == 2 {
            &s[..s.len() - 8]
        } else {
            s
        };
        assert!(!out.full.contains(kept), "{s} leaked:\n{}", out.full);
    }
    assert_eq!(
        out.full.matches("[redacted]").count(),
        spellings.len(),
        "{}",
        out.full
    );
    // Background processes get the same environment.
    reg.run("shell_bg", &json!({"command": "env"}), &c).unwrap();
    let out = reg
        .run("shell_poll", &json!({"id": 1, "wait_secs": 5}), &c)
        .unwrap();
    assert!(out.full.contains("PLAIN_VALUE_FOR_TEST"), "{}", out.full);
    assert!(!out.full.contains("KOI_API_KEY") && !out.full.contains("MY_LLM_CREDS"));

    // A program planted in the workspace cannot stand in for `ls` through
    // PATH, and an exported bash function cannot redefine it.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(bin.join("ls"), "#!/bin/sh\necho planted-ls-ran\n").unwrap();
    std::fs::set_permissions(
        bin.join("ls"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let old_path = std::env::var("PATH").unwrap_or_default();
    std::env::set_var("PATH", format!("{}:.:{old_path}", bin.display()));
    std::env::set_var("BASH_FUNC_cat%%", "() { echo exported-function-ran; }");
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "ls; cat leak.txt; cd bin && ls"}),
            &c,
        )
        .unwrap();
    std::env::set_var("PATH", old_path);
    std::env::remove_var("BASH_FUNC_cat%%");
    assert!(!out.full.contains("planted-ls-ran"), "{}", out.full);
    assert!(!out.full.contains("exported-function-ran"), "{}", out.full);
    assert!(out.full.contains("leak.txt"), "{}", out.full);
}
