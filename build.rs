//! Builds the cl100k_base byte-pair encoding that `src/tokens.rs` counts tokens with, keeping
//! only what counting needs (SPEC §15: say what the binary holds, shrink it where that costs no
//! speed).
//!
//! `bpe_openai::cl100k_base()` embeds a 15 MB serialized `BytePairEncoding`; half of it is two
//! Aho-Corasick automata (`overlapping_searcher` and its reverse) that only the table, minimal
//! and dropout encoders use. Counting (`BytePairEncoding::count`, the backtracking encoder)
//! never touches them, so here they are replaced by a one-pattern automaton: 7.3 MB less in
//! every binary, and less to load at the first count. Every other part is built exactly as
//! bpe-openai 0.3.2's build script builds it: the same tokens in rank order, the same hash
//! factor, the same serialization (rmp-serde, structs as arrays).
//!
//! The tokens come from tiktoken-rs (OpenAI's cl100k_base.tiktoken, MIT), the reference the
//! corpus test in `tests/cli/tokens.rs` compares megg's counts against.

// A build script talks to cargo on stdout and writes only into OUT_DIR; src/fsx's gate is for
// what megg reads and writes at run time.
#![allow(clippy::print_stdout, clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::error::Error;
use std::path::PathBuf;

use aneubeck_daachorse::DoubleArrayAhoCorasick;
use bpe::byte_pair_encoding::BytePairEncoding;
use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// bpe-openai's hash factor for cl100k_base: `bytes_hash_to_token` is collision-free with it.
const HASH_FACTOR: u64 = 17_846_336_922_010_275_747;

/// cl100k_base's ordinary tokens (ranks 0..100256; the special tokens come after).
const CL100K_TOKENS: usize = 100_256;

/// The file `src/tokens.rs` embeds.
const OUT_FILE: &str = "cl100k_base.bpe";

/// `BytePairEncoding`'s serialized fields, in its declaration order (bpe 0.2.3). Maps are
/// ordered so the file is the same on every build.
#[derive(Serialize, Deserialize)]
struct Parts {
    all_tokens: Vec<u8>,
    token_starts: Vec<u32>,
    bytes_hash_to_token: BTreeMap<u32, u32>,
    split_table: Vec<(u32, u32)>,
    pair_lookup: BTreeMap<(u32, u32), u32>,
    longest_searcher: Bytes,
    overlapping_searcher: Bytes,
    overlapping_searcher_rev: Bytes,
    next_prefix_match: Vec<u32>,
    hash_factor: u64,
}

/// A serialized automaton: a msgpack `bin`.
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl Visitor<'_> for BytesVisitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
        }
        d.deserialize_bytes(BytesVisitor)
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    let tiktoken = tiktoken_rs::cl100k_base()?;
    let tokens: Vec<Vec<u8>> = (0..)
        .map_while(|rank| tiktoken.decode_bytes(&[rank]).ok())
        .collect();
    if tokens.len() != CL100K_TOKENS {
        return Err(format!(
            "tiktoken-rs's cl100k_base has {} ordinary tokens, not {CL100K_TOKENS}",
            tokens.len()
        )
        .into());
    }
    let full = BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR));

    let mut parts: Parts = rmp_serde::from_slice(&rmp_serde::to_vec(&full)?)?;
    let stub = DoubleArrayAhoCorasick::<u32>::new([[0u8]])
        .map_err(|e| e.to_string())?
        .serialize();
    parts.overlapping_searcher = Bytes(stub.clone());
    parts.overlapping_searcher_rev = Bytes(stub);
    let stripped = rmp_serde::to_vec(&parts)?;

    // What megg loads must load, and count as the full encoding does.
    let check: BytePairEncoding = rmp_serde::from_slice(&stripped)?;
    for sample in [
        &b"hello world"[..],
        "naïve café — 東京 😀".as_bytes(),
        b"    indented\r\n\tfn main() { let x = 0xDEADBEEF; }",
        &[0xff, 0xfe, 0x00, 0x80],
    ] {
        if check.count(sample) != full.count(sample) {
            return Err(format!("the stripped encoding miscounts {sample:?}").into());
        }
    }

    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    std::fs::write(out.join(OUT_FILE), stripped)?;
    Ok(())
}
