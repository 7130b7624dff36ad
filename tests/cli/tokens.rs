//! The tokenizer megg ships (bpe-openai) must count exactly what tiktoken's
//! `encode_ordinary` counts for cl100k_base (SPEC §1 "tokens").

use megg::tokens::Counter;

use crate::reference_tokens;

fn corpus() -> Vec<String> {
    let mut texts: Vec<String> = vec![
        String::new(),
        "hello world".into(),
        "<|endoftext|> and <|fim_prefix|> are ordinary text here".into(),
        "   leading spaces\n\n\n\ttabs\r\nCRLF\r\n  trailing   ".into(),
        "Ünïcödé — “quotes” ‘single’ … emoji 😀👍🏽 家族 한국어 العربية".into(),
        "fn main() { let x: Vec<u8> = vec![1, 2, 3]; println!(\"{x:?}\"); }\n".into(),
        "1234567890 3.14159 1e10 0xDEADBEEF 2026-01-17T10:30:00Z".into(),
        "don't won't they're I'm you'll she'd IT'S".into(),
        "\u{FFFD}\u{FFFD} replacement characters".into(),
        "a".repeat(10_000),
        " ".repeat(300),
        "\n".repeat(50) + "x",
        "word ".repeat(3_000),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in [
        "tests/fixtures/ts-megg-v1.1/acme/shop/.megg/knowledge.md",
        "tests/fixtures/ts-megg-v1.1/acme/shop/.megg/state.md",
        "tests/fixtures/ts-megg-v1.1/context-hook-output.json",
        "src/render/context/body.rs",
        "src/megg/knowledge/mod.rs",
        "src/megg/checkpoint.rs",
        "README.md",
        "CHANGELOG.md",
        "Cargo.toml",
    ] {
        texts.push(std::fs::read_to_string(root.join(rel)).unwrap());
    }
    texts.extend((0..40).map(soup));
    texts
}

/// Deterministic pseudo-random text mixing scripts, digits, whitespace runs, punctuation and
/// contractions: the places where pre-tokenizer regexes differ.
fn soup(seed: u64) -> String {
    const PIECES: [&str; 24] = [
        " ",
        "  ",
        "\n",
        "\r\n",
        "\t",
        "'s",
        "'LL",
        "word",
        "Word",
        "123",
        "4567",
        "é",
        "ß",
        "東京",
        "😀",
        "👍🏽",
        "—",
        "...",
        "!!",
        "{}",
        "<|endoftext|>",
        "\u{a0}",
        "x_y",
        "αβγ",
    ];
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = String::new();
    for _ in 0..(50 + seed as usize * 13) {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(PIECES[(state >> 33) as usize % PIECES.len()]);
    }
    out
}

#[test]
fn bpe_openai_counts_equal_tiktoken_encode_ordinary() {
    let counter = Counter::new(None);
    let texts = corpus();
    assert!(texts.len() >= 20);
    for t in &texts {
        // Every prefix at a few cut points too: truncation relies on prefix counts.
        for end in [t.len() / 3, t.len() / 2, t.len()] {
            let end = (0..=end).rev().find(|&i| t.is_char_boundary(i)).unwrap();
            let s = &t[..end];
            assert_eq!(
                counter.count(s),
                reference_tokens(s),
                "mismatch on {:?}…",
                &s[..s.len().min(60)]
            );
        }
    }
}
