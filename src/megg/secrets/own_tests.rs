#![allow(clippy::string_slice)] // tests slice their own ASCII fixtures
use super::*;

/// `text` with what megg's own rules find replaced, again until nothing changes, as
/// [`super::super::redact`] does (the combination with gitleaks' rules is tested in the parent
/// module).
fn redact(text: &str) -> Cow<'_, str> {
    super::super::again_until_unchanged(text, redact_once)
}

fn redact_once(text: &str) -> Cow<'_, str> {
    let found = secrets(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut at = 0;
    for f in found {
        out.push_str(text.get(at..f.range.start).unwrap_or_default());
        out.push_str(REDACTED);
        at = f.range.end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    Cow::Owned(out)
}
use std::borrow::Cow;

const GHP: &str = "ghp_R7tKq2mXw9LpZ4vNc8YbH3sJf6DgA1eUo5iQ";
const ANT: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd";

/// The kinds found in `text`.
fn kinds(text: &str) -> Vec<Kind> {
    secrets(text).into_iter().map(|f| f.kind).collect()
}

/// `text` is left exactly as it is.
fn untouched(text: &str) {
    assert!(
        matches!(redact(text), Cow::Borrowed(_)),
        "changed: {text:?} → {:?}",
        redact(text)
    );
}

#[test]
fn a_private_key_block_is_redacted_whole() {
    let text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabc==\n-----END RSA PRIVATE KEY-----\nthen more";
    assert_eq!(redact(text), "key:\n[redacted]\nthen more");
    assert_eq!(kinds(text), [Kind::PrivateKey]);
    let openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----";
    assert_eq!(redact(openssh), "[redacted]");
    // Without its END line, everything after the BEGIN line is the key.
    assert_eq!(
        redact("x -----BEGIN PRIVATE KEY-----\nMIIE"),
        "x [redacted]"
    );
    // As a secret-named key's value too, whole.
    assert_eq!(
        redact("token=-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"),
        "token=[redacted]"
    );
    // A certificate or a public key is not a secret.
    untouched("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
    untouched("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----");
}

#[test]
fn aws_keys_need_16_characters_after_the_prefix_at_a_word_start() {
    assert_eq!(redact("id AKIAIOSFODNN7EXAMPLE."), "id [redacted].");
    assert_eq!(redact("ASIAIOSFODNN7EXAMPLE"), "[redacted]");
    assert_eq!(kinds("AKIAIOSFODNN7EXAMPLE"), [Kind::AwsKey]);
    untouched("AKIAIOSFODNN7EXAMPL"); // 15
    untouched("XAKIAIOSFODNN7EXAMPLE"); // not at a word start
    untouched("AKIAIOSFODNN7EXAMPLEabc"); // the word goes on
}

#[test]
fn github_tokens_need_their_length() {
    assert_eq!(redact(&format!("use {GHP} now")), "use [redacted] now");
    for p in ["gho_", "ghs_", "ghu_"] {
        assert_eq!(redact(&format!("{p}{}", &GHP[4..])), "[redacted]");
    }
    assert_eq!(kinds(GHP), [Kind::GitHubToken]);
    untouched(&GHP[..GHP.len() - 1]); // 35
    untouched(&format!("x{GHP}"));
    let pat = "github_pat_11ABCDEFG0123456789_abcdefghijk";
    assert_eq!(redact(pat), "[redacted]");
    assert_eq!(kinds(pat), [Kind::GitHubToken]);
    untouched("github_pat_0123456789abcdefghijk"); // 21
}

#[test]
fn sk_keys_need_20_characters_and_a_word_start() {
    assert_eq!(redact(&format!("key {ANT}")), "key [redacted]");
    assert_eq!(redact("sk-proj-Ab12Cd34Ef56Gh78Ij90"), "[redacted]");
    assert_eq!(kinds(ANT), [Kind::ApiKey]);
    untouched("sk-Ab12Cd34Ef56Gh78Ij9"); // 19
    untouched("risk-Ab12Cd34Ef56Gh78Ij90Kl");
    untouched("task-force, risk-assessment, ask-the-user, desk-top");
    // Hyphenated words are not a key.
    untouched("sk-learn-is-a-python-library-for-ml");
}

#[test]
fn slack_tokens_need_10_characters() {
    assert_eq!(redact("xoxb-123456789012-abc"), "[redacted]");
    assert_eq!(kinds("xoxp-1234567890"), [Kind::SlackToken]);
    untouched("xoxb-123456789"); // 9
    untouched("xoxz-1234567890");
    untouched("axoxb-1234567890");
}

#[test]
fn google_keys_need_35_characters() {
    let key = "AIzaSyA-1234567890abcdefghijklmnopqrstu";
    assert_eq!(key.len(), 39);
    assert_eq!(redact(key), "[redacted]");
    assert_eq!(kinds(key), [Kind::GoogleApiKey]);
    untouched(&key[..38]);
    untouched(&format!("x{key}"));
}

#[test]
fn jwts_are_three_segments() {
    let jwt =
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    assert_eq!(redact(&format!("Bearer {jwt}.")), "Bearer [redacted].");
    assert_eq!(kinds(jwt), [Kind::Jwt]);
    untouched("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0");
    untouched("eyJhbGciOiJIUzI1NiJ9.abc.def");
}

#[test]
fn secret_named_keys_lose_their_value_and_keep_the_key() {
    assert_eq!(redact("password=hunter2"), "password=[redacted]");
    assert_eq!(redact("DB_PASSWORD = s3cr3t!"), "DB_PASSWORD = [redacted]");
    assert_eq!(redact("passwd: hunter2\nnext"), "passwd: [redacted]\nnext");
    assert_eq!(
        redact(r#"{"api_key": "abc def", "name": "x"}"#),
        r#"{"api_key": "[redacted]", "name": "x"}"#
    );
    assert_eq!(redact("apikey:x9z"), "apikey:[redacted]");
    // Placeholders people write in docs stay (SPEC §12: what gitleaks' allowlists pass).
    untouched("apikey:xyz password: dev PuttyPassword=0 password=your-secure-password");
    untouched("token: <token> password = config.database.password secret=changeme");
    assert_eq!(redact("Secret: 42"), "Secret: [redacted]");
    assert_eq!(
        redact("https://x.io/cb?token=a1b2c3&next=1"),
        "https://x.io/cb?token=[redacted]&next=1"
    );
    assert_eq!(kinds("password=hunter2"), [Kind::Value]);
    // A known token as the value is named as that token.
    assert_eq!(kinds(&format!("GITHUB_TOKEN={GHP}")), [Kind::GitHubToken]);
    assert_eq!(
        redact(&format!("GITHUB_TOKEN={GHP}")),
        "GITHUB_TOKEN=[redacted]"
    );
    // Prose, comparisons, other keys and empty values are not touched.
    untouched("the token expires tomorrow; the password is in the vault");
    untouched("if token == expected");
    untouched("tokenizer=o200k max_tokens=2000 token_count: 5 passwords");
    untouched("password=\n**Secret:** keep it\n\"token\": null");
}

#[test]
fn url_userinfo_is_redacted_and_the_host_kept() {
    assert_eq!(
        redact("git clone https://bob:pa55@git.example.com/r.git"),
        "git clone https://[redacted]@git.example.com/r.git"
    );
    assert_eq!(
        redact("postgres://u:p4@localhost:5432/db"),
        "postgres://[redacted]@localhost:5432/db"
    );
    assert_eq!(kinds("https://a:b2@h"), [Kind::UrlUserinfo]);
    untouched("nats://a:a@localhost postgres://user:password@db");
    untouched("https://example.com/a@b and http://localhost:8080/x?y=1#z and mailto:a@b.c");
}

#[test]
fn multi_byte_characters_next_to_secrets_stay_whole() {
    assert_eq!(
        redact("Café password=Crème☕brûlée — fin"),
        "Café password=[redacted] — fin"
    );
    assert_eq!(
        redact("é https://üser:pässwörd@hôst/é"),
        "é https://[redacted]@hôst/é"
    );
    assert_eq!(redact("token=\"é☕"), "token=\"[redacted]");
    assert_eq!(
        redact("☕ghp_R7tKq2mXw9LpZ4vNc8YbH3sJf6DgA1eUo5iQé"),
        "☕[redacted]é"
    );
    untouched("-----BEGIN É PRIVATE KEY-----\nMIIE");
    untouched("ü://x@y é:");
}

#[test]
fn ordinary_text_stays_byte_identical() {
    let text = "We wrote the task-list and a sketch of the skeleton; the tokenizer counts \
                tokens and the token expires after an hour. A risk-assessment by the task-force \
                asked ask-the-user questions at the desk-top. See https://docs.example.com/a/b?x=1 \
                and http://localhost:3000/path.\n\
                ```json\n{\"name\": \"megg\", \"max_tokens\": 2000, \"tokenizer\": \"o200k\", \
                \"secrets\": [], \"tokens\": 12}\n```\n\
                Skipped: sk-. AKIA is a prefix; ghp_ too. eyJ is base64 for {\"\n\
                Ünïcödé — ✓ ok.";
    untouched(text);
}

#[test]
fn several_secrets_in_one_text() {
    let text = format!("a AKIAIOSFODNN7EXAMPLE b {GHP} c {ANT} d password=hunter2 e");
    assert_eq!(
        redact(&text),
        "a [redacted] b [redacted] c [redacted] d password=[redacted] e"
    );
    assert_eq!(
        kinds(&text),
        [Kind::AwsKey, Kind::GitHubToken, Kind::ApiKey, Kind::Value]
    );
}

#[test]
fn redacting_twice_is_redacting_once() {
    for text in [
        format!(
            "token: {GHP} and https://u:p@h/x and password=\"a b\" and -----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----y{GHP}"
        ),
        "password=\"unclosed and token='x'".to_string(),
        "AKIA://-----BEGIN PRIVATE KEY----------END PRIVATE KEY-----sk-@".to_string(),
        "token=-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----abc".to_string(),
        format!("{ANT}{ANT} AKIAIOSFODNN7EXAMPLE,AKIAIOSFODNN7EXAMPLE"),
    ] {
        let once = redact(&text).into_owned();
        assert_eq!(redact(&once), once, "{text:?}");
    }
}

#[test]
fn adversarial_megabytes_take_linear_time() {
    let started = std::time::Instant::now();
    for unit in [
        "sk-",
        "sk-a",
        "eyJa.",
        "eyJ-",
        "eyJa.eyJa",
        "token=",
        "token ",
        "token:\"",
        "a://",
        "https://a:b",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "AKIA",
        "xoxb-",
        "password",
    ] {
        let text = unit.repeat(1_000_000 / unit.len());
        let _ = redact(&text);
        let _ = redact(&format!("-----BEGIN PRIVATE KEY-----{text}"));
    }
    let text = "-----BEGIN RSA PRIVATE KEY----- x ".repeat(30_000) + "-----END X-----";
    let _ = redact(&text);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn never_panics_and_leaves_clean_text_alone(text in any::<String>()) {
            let out = redact(&text);
            if secrets(&text).is_empty() {
                prop_assert_eq!(out.as_ref(), text.as_str());
            }
            let twice = redact(&out).into_owned();
            prop_assert_eq!(twice.as_str(), out.as_ref());
        }

        #[test]
        fn secret_shaped_text_never_panics(
            text in "(sk-|ghp_|AKIA|eyJ|token|=|: |\"|'|[a-zA-Z0-9_.-]{1,8}|://|@|-----BEGIN PRIVATE KEY-----|-----END PRIVATE KEY-----| |\n|é){0,40}"
        ) {
            let out = redact(&text);
            for f in secrets(&text) {
                prop_assert!(text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end));
            }
            let twice = redact(&out).into_owned();
            prop_assert_eq!(twice.as_str(), out.as_ref());
        }
    }
}

#[test]
fn stripe_keys_are_redacted_at_their_real_length() {
    let key = format!("sk_live_{}", "51Habc".repeat(5));
    let text = format!(
        "el token de Stripe es {key}, no lo pierdas; rk_test_{}",
        "a1B2".repeat(7)
    );
    assert_eq!(
        redact(&text),
        "el token de Stripe es [redacted], no lo pierdas; [redacted]"
    );
    // Too short for a key, or a word that merely starts so: left alone.
    assert_eq!(
        redact("sk_live_short and sk_test_mode"),
        "sk_live_short and sk_test_mode"
    );
}

/// Redacting twice is redacting once, even where a redaction takes what kept a secret before
/// it from reading as one: here the private key swallows `token="…"`'s closing quote, and the
/// `sk------END` before it then reads as the token's value (found by the property above).
#[test]
fn a_redaction_that_takes_a_quote_is_redacted_again() {
    let text = "token=\"sk------END PRIVATE KEY----------BEGIN PRIVATE KEY-----token\"";
    let once = redact(text).into_owned();
    assert_eq!(redact(&once), once);
    assert!(!once.contains("sk------END"), "{once}");
}
