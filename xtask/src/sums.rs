//! SHA256SUMS: `sha256sum`'s format (`<hex>  <name>`), one line per artifact, sorted by name,
//! so `sha256sum -c SHA256SUMS` checks a release directory and install.sh finds its line.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// The lowercase hex SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The file's text for these (name → hex) sums; the map keeps them sorted by name.
pub fn render(sums: &BTreeMap<String, String>) -> String {
    sums.iter()
        .map(|(name, hex)| format!("{hex}  {name}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_nothing_is_the_well_known_one() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn lines_are_sha256sums_format_sorted_by_name() {
        let sums = BTreeMap::from([
            ("npm/megg-1.1.0.tgz".to_owned(), "cc".repeat(32)),
            (
                "megg-1.1.0-x86_64-unknown-linux-musl.tar.xz".to_owned(),
                "aa".repeat(32),
            ),
            ("install.sh".to_owned(), "bb".repeat(32)),
            (
                "megg-1.1.0-aarch64-apple-darwin.tar.gz".to_owned(),
                "dd".repeat(32),
            ),
        ]);
        let text = render(&sums);
        let expected = format!(
            "{}  install.sh\n{}  megg-1.1.0-aarch64-apple-darwin.tar.gz\n\
             {}  megg-1.1.0-x86_64-unknown-linux-musl.tar.xz\n{}  npm/megg-1.1.0.tgz\n",
            "bb".repeat(32),
            "dd".repeat(32),
            "aa".repeat(32),
            "cc".repeat(32)
        );
        assert_eq!(text, expected);
    }

    /// The real tool reads what we write.
    #[test]
    fn sha256sum_checks_the_file() {
        if std::process::Command::new("sha256sum")
            .arg("--version")
            .output()
            .is_err()
        {
            println!("skipped: no sha256sum on this machine");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("npm")).unwrap();
        std::fs::write(dir.path().join("a.tar.xz"), b"a").unwrap();
        std::fs::write(dir.path().join("npm/b.tgz"), b"b").unwrap();
        let sums = BTreeMap::from([
            ("a.tar.xz".to_owned(), sha256_hex(b"a")),
            ("npm/b.tgz".to_owned(), sha256_hex(b"b")),
        ]);
        std::fs::write(dir.path().join("SHA256SUMS"), render(&sums)).unwrap();
        let status = std::process::Command::new("sha256sum")
            .args(["--check", "--strict", "--quiet", "SHA256SUMS"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    }
}
