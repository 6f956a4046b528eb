//! Tests of the `[ai]` config: parsing, validation, key lookup, resolution.

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn reads_only_the_ai_table() {
    let text = r#"
        [font]
        size = 13
        [ai]
        provider = "openai"
        base_url = "http://127.0.0.1:11434/v1/"
        model = "qwen2.5-coder"
        api_key = "sk-secret"
        [colors.primary]
        background = "x"
    "#;
    let cfg = AiConfig::from_toml_str(text, Path::new("koi.toml")).unwrap();
    assert_eq!(cfg.model.as_deref(), Some("qwen2.5-coder"));
    assert!(!format!("{cfg:?}").contains("sk-secret"));
    let r = cfg.resolve_with(&no_env, None);
    assert_eq!(r.provider, ProviderKind::OpenAi);
    assert_eq!(r.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(r.fast_model, "qwen2.5-coder");
    assert_eq!(r.api_key.as_ref().map(ApiKey::expose), Some("sk-secret"));
    assert!(!format!("{r:?}").contains("sk-secret"));
    let key = r.sources.iter().find(|p| p.key == "api_key").unwrap();
    assert_eq!((key.value.as_str(), &key.source), ("***", &Source::Config));
}

#[test]
fn bad_values_are_clear_errors() {
    let e =
        AiConfig::from_toml_str("[ai]\napproval_mode = \"yolo\"", Path::new("k.toml")).unwrap_err();
    assert!(e.to_string().contains("approval_mode"), "{e}");
    let e = AiConfig::from_toml_str("[ai]\nprovider = \"gpt\"", Path::new("k.toml")).unwrap_err();
    assert!(e.to_string().contains("k.toml"), "{e}");
    assert!(AiConfig::from_toml_str("[ai\n", Path::new("k.toml")).is_err());
}

#[test]
fn sandbox_settings_are_validated_and_expanded() {
    let path = Path::new("k.toml");
    let e = AiConfig::from_toml_str("[ai]\nsandbox = \"strict\"", path).unwrap_err();
    assert!(
        e.to_string().contains("sandbox") && e.to_string().contains("strict"),
        "{e}"
    );
    let e = AiConfig::from_toml_str("[ai]\nsandbox_writable = [\"rel/dir\"]", path).unwrap_err();
    assert!(e.to_string().contains("sandbox_writable"), "{e}");
    let cfg = AiConfig::from_toml_str(
        "[ai]\nsandbox = \"require\"\nsandbox_writable = [\"~/.m2\", \"/opt/cache\"]",
        path,
    )
    .unwrap();
    let r = cfg.resolve_with(&no_env, None);
    assert_eq!(r.sandbox.mode, SandboxMode::Require);
    let home = dirs::home_dir().unwrap_or_default();
    assert_eq!(
        r.sandbox.writable,
        vec![home.join(".m2"), PathBuf::from("/opt/cache")]
    );
    let shown = r.sources.iter().find(|p| p.key == "sandbox").unwrap();
    assert_eq!(
        (shown.value.as_str(), &shown.source),
        ("require", &Source::Config)
    );
    // Hidden paths: absolute or under ~, shown where they came from.
    let e = AiConfig::from_toml_str("[ai]\nsandbox_hidden = [\"secrets\"]", path).unwrap_err();
    assert!(e.to_string().contains("sandbox_hidden"), "{e}");
    let cfg = AiConfig::from_toml_str("[ai]\nsandbox_hidden = [\"~/vault\", \"/srv/keys\"]", path)
        .unwrap();
    let r = cfg.resolve_with(&no_env, None);
    assert_eq!(
        r.sandbox.hidden,
        vec![home.join("vault"), PathBuf::from("/srv/keys")]
    );
    let shown = r
        .sources
        .iter()
        .find(|p| p.key == "sandbox_hidden")
        .unwrap();
    assert_eq!(shown.source, Source::Config);
    assert!(shown.value.contains("/srv/keys"), "{}", shown.value);
    // Unset: auto, with the build caches.
    let r = AiConfig::default().resolve_with(&no_env, None);
    assert_eq!(r.sandbox, SandboxConfig::default());
}

#[test]
fn key_lookup_order_and_sources() {
    let cfg = AiConfig {
        provider: Some(ProviderKind::Anthropic),
        ..AiConfig::default()
    };
    let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "a-key".to_string());
    let r = cfg.resolve_with(&env, None);
    assert_eq!(r.api_key.as_ref().map(ApiKey::expose), Some("a-key"));
    assert_eq!(r.key_env_vars, vec!["KOI_API_KEY", "ANTHROPIC_API_KEY"]);
    let env2 = |k: &str| (k == "KOI_API_KEY" || k == "ANTHROPIC_API_KEY").then(|| k.to_string());
    let r = cfg.resolve_with(&env2, None);
    assert_eq!(r.api_key.as_ref().map(ApiKey::expose), Some("KOI_API_KEY"));
    assert_eq!(r.fast_model, "claude-haiku-4-5");
}

#[test]
fn a_missing_file_is_the_empty_config() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = AiConfig::load_from(&dir.path().join("koi.toml")).unwrap();
    assert_eq!(cfg, AiConfig::default());
    std::fs::write(dir.path().join("koi.toml"), "[font]\nsize = 12\n").unwrap();
    assert_eq!(
        AiConfig::load_from(&dir.path().join("koi.toml")).unwrap(),
        AiConfig::default()
    );
}

#[test]
fn nothing_configured_without_servers_is_demo() {
    let r = AiConfig::default().resolve_with(&no_env, None);
    assert_eq!(r.provider, ProviderKind::Demo);
    assert!(r.api_key.is_none());
}

#[test]
fn thinking_and_prices_are_validated() {
    let path = Path::new("k.toml");
    let e = AiConfig::from_toml_str("[ai]\nthinking = \"max\"", path).unwrap_err();
    assert!(e.to_string().contains("thinking"), "{e}");
    let e = AiConfig::from_toml_str("[ai.prices]\n\"m\" = { input = -1.0, output = 2.0 }", path)
        .unwrap_err();
    assert!(
        e.to_string().contains("prices") && e.to_string().contains("input"),
        "{e}"
    );
    let e = AiConfig::from_toml_str("[ai.prices]\n\"m\" = { input = 1.0 }", path).unwrap_err();
    assert!(e.to_string().contains("output"), "{e}");
    let e = AiConfig::from_toml_str(
        "[ai.prices]\n\"m\" = { input = 1.0, output = 2.0, cache = 1 }",
        path,
    )
    .unwrap_err();
    assert!(e.to_string().contains("cache"), "{e}");
    let cfg = AiConfig::from_toml_str(
        "[ai]\nthinking = \"high\"\n[ai.prices]\n\"m\" = { input = 1.0, output = 2.0 }",
        path,
    )
    .unwrap();
    let r = cfg.resolve_with(&no_env, None);
    assert_eq!(r.thinking, ThinkingLevel::High);
    assert_eq!(r.prices.of("m-1").map(|p| p.output), Some(2.0));
    let shown = |k: &str| r.sources.iter().find(|p| p.key == k).unwrap().clone();
    assert_eq!(shown("thinking").value, "high");
    assert_eq!(shown("prices").value, "m");
    let r = AiConfig::default().resolve_with(&no_env, None);
    assert_eq!(r.thinking, ThinkingLevel::Off);
}

#[test]
fn the_compaction_table_parses_validates_and_resolves() {
    let text = r#"
        [ai]
        model = "qwen2.5-coder"
        [ai.compaction]
        soft_percent = 30
        windows = { "qwen2.5-coder" = 65536 }
    "#;
    let cfg = AiConfig::from_toml_str(text, Path::new("koi.toml")).unwrap();
    let r = cfg.resolve_with(&no_env, None);
    assert_eq!(r.compaction.soft_percent, 30);
    assert_eq!(r.compaction.hard_percent, 70);
    assert_eq!(r.compaction.window_for("qwen2.5-coder").tokens, 65_536);
    let shown = r.sources.iter().find(|p| p.key == "compaction").unwrap();
    assert_eq!(shown.source, Source::Config);
    for (bad, key) in [
        (
            "[ai.compaction]\nhard_percent = 20\nsoft_percent = 40",
            "hard_percent",
        ),
        ("[ai.compaction]\ncontext_window = 10", "context_window"),
        ("[ai.compaction]\nsoft = 40", "unknown field"),
    ] {
        let e = AiConfig::from_toml_str(bad, Path::new("k.toml")).unwrap_err();
        assert!(e.to_string().contains(key), "{bad}: {e}");
    }
}

#[test]
fn memory_is_on_with_a_model_off_in_the_demo_and_when_turned_off() {
    let parse = |t: &str| AiConfig::from_toml_str(t, Path::new("k.toml")).unwrap();
    let on = parse("[ai]\nprovider = \"anthropic\"\n").resolve_with(&no_env, None);
    assert!(on.memory);
    let off = parse("[ai]\nprovider = \"anthropic\"\nmemory = false\n").resolve_with(&no_env, None);
    assert!(!off.memory);
    let demo = parse("[ai]\nprovider = \"demo\"\nmemory = true\n").resolve_with(&no_env, None);
    assert!(!demo.memory);
    let shown = off.sources.iter().find(|p| p.key == "memory").unwrap();
    assert_eq!(
        (shown.value.as_str(), &shown.source),
        ("off", &Source::Config)
    );
}

#[test]
fn web_search_is_checked_and_its_key_variable_is_a_secret() {
    let text = "[ai]\nprovider = \"openai-responses\"\nnative_web_search = true\n\
                [ai.web_search]\nprovider = \"tavily\"\napi_key_env = \"MY_SEARCH\"\n";
    let r = AiConfig::from_toml_str(text, Path::new("k.toml"))
        .unwrap()
        .resolve_with(&no_env, None);
    assert!(r.native_web_search);
    assert!(
        r.key_env_vars.iter().any(|v| v == "MY_SEARCH"),
        "{:?}",
        r.key_env_vars
    );
    let shown = r.sources.iter().find(|p| p.key == "web_search").unwrap();
    assert_eq!(shown.value, "tavily (key from MY_SEARCH)");
    for (bad, want) in [
        ("[ai.web_search]\nprovider = \"searxng\"\n", "needs url"),
        ("[ai.web_search]\nprovider = \"bing\"\n", "unknown variant"),
        (
            "[ai.web_search]\nprovider = \"brave\"\nkey = \"x\"\n",
            "unknown field",
        ),
        (
            "[ai.web_search]\nprovider = \"brave\"\nurl = \"file:///x\"\n",
            "http or https",
        ),
    ] {
        let e = AiConfig::from_toml_str(bad, Path::new("k.toml")).unwrap_err();
        assert!(e.to_string().contains(want), "{bad}: {e}");
    }
}
