//! Reproducible archives: the same files give the same bytes on every machine and every run
//! (entries sorted, one fixed mtime, owner root with no names): tarballs, then gzip or xz, and
//! the zip Windows gets.

use std::io::Write;

use anyhow::{Context, Result};

/// Every entry's mtime: npm pack's fixed date (1985-10-26T08:15:00Z), so megg's own npm
/// tarballs match what `npm pack` would write, and the release archives follow suit.
pub const MTIME: u64 = 499_162_500;

/// xz's strongest preset: the release archive must stay under 10 MB (SPEC §15). Measured on
/// megg 1.1.0's 25.9 MB binary, the extreme flag made it 0.4% larger and the x86 BCJ filter
/// 0.5% smaller (and arm64's needs xz 5.4 to unpack): neither is used.
const XZ_PRESET: u32 = 9;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    Dir,
    File { data: &'a [u8], mode: u32 },
}

/// One tarball entry: a path (a directory's ends in `/`) and what is there.
pub type Item<'a> = (String, Entry<'a>);

/// A ustar archive of `items`, sorted by path.
pub fn tar(mut items: Vec<Item<'_>>) -> Result<Vec<u8>> {
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let mut builder = tar::Builder::new(Vec::new());
    for (path, entry) in &items {
        let mut header = tar::Header::new_ustar();
        header.set_mtime(MTIME);
        header.set_uid(0);
        header.set_gid(0);
        let data: &[u8] = match entry {
            Entry::Dir => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(0o755);
                &[]
            }
            Entry::File { data, mode } => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(*mode);
                data
            }
        };
        header.set_size(data.len() as u64);
        builder
            .append_data(&mut header, path, data)
            .with_context(|| format!("cannot add {path} to the tarball"))?;
    }
    builder.into_inner().context("cannot finish the tarball")
}

/// gzip at its best level, with no name and no time in the header.
pub fn gzip(data: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).context("gzip failed")?;
    encoder.finish().context("gzip failed")
}

/// A zip of `items`, sorted by path, deflated at level 9: the one method that Explorer,
/// PowerShell 5.1's Expand-Archive and winget all unpack (SPEC §15.1). Entries are marked as
/// made on Unix with the tarball's modes, so a zip made on Windows is byte for byte the one
/// made on Linux; Windows ignores the modes.
pub fn zip(mut items: Vec<Item<'_>>) -> Result<Vec<u8>> {
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let mtime = zip::DateTime::from_date_and_time(1985, 10, 26, 8, 15, 0)
        .context("npm pack's date is a DOS date")?;
    let options = |mode: u32| {
        zip::write::SimpleFileOptions::default()
            .system(zip::System::Unix)
            .unix_permissions(mode)
            .last_modified_time(mtime)
    };
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, entry) in &items {
        match entry {
            Entry::Dir => writer
                .add_directory(path.as_str(), options(0o755))
                .with_context(|| format!("cannot add {path} to the zip"))?,
            Entry::File { data, mode } => {
                let deflated = options(*mode)
                    .compression_method(zip::CompressionMethod::Deflated)
                    .compression_level(Some(9));
                writer
                    .start_file(path.as_str(), deflated)
                    .and_then(|()| writer.write_all(data).map_err(Into::into))
                    .with_context(|| format!("cannot add {path} to the zip"))?;
            }
        }
    }
    let cursor = writer.finish().context("cannot finish the zip")?;
    Ok(cursor.into_inner())
}

/// xz at preset 9, single-threaded (a threaded encoder splits blocks by thread count).
pub fn xz(data: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = liblzma::write::XzEncoder::new(Vec::new(), XZ_PRESET);
    encoder.write_all(data).context("xz failed")?;
    encoder.finish().context("xz failed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn items(data: &[u8]) -> Vec<Item<'_>> {
        vec![
            ("top/bin".into(), Entry::File { data, mode: 0o755 }),
            ("top/".into(), Entry::Dir),
            (
                "top/README.md".into(),
                Entry::File {
                    data: b"hi\n",
                    mode: 0o644,
                },
            ),
        ]
    }

    /// (path, mode, uid, gid, mtime, user name, size) of each entry.
    fn listing(tarball: &[u8]) -> Vec<(String, u32, u64, u64, u64, String, u64)> {
        let mut archive = tar::Archive::new(tarball);
        archive
            .entries()
            .unwrap()
            .map(|entry| {
                let entry = entry.unwrap();
                let h = entry.header();
                (
                    entry.path().unwrap().to_string_lossy().into_owned(),
                    h.mode().unwrap(),
                    h.uid().unwrap(),
                    h.gid().unwrap(),
                    h.mtime().unwrap(),
                    h.username().unwrap().unwrap_or("").to_owned(),
                    h.size().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn entries_are_sorted_owned_by_root_and_dated_once() {
        let tarball = tar(items(b"\x7fELF")).unwrap();
        let entries = listing(&tarball);
        let entry = |path: &str, mode, size| (path.into(), mode, 0, 0, MTIME, String::new(), size);
        assert_eq!(
            entries,
            [
                entry("top/", 0o755, 0),
                entry("top/README.md", 0o644, 3),
                entry("top/bin", 0o755, 4)
            ]
        );
    }

    #[test]
    fn the_same_files_make_the_same_bytes() {
        let a = tar(items(b"one")).unwrap();
        let mut reversed = items(b"one");
        reversed.reverse();
        assert_eq!(a, tar(reversed).unwrap());
        assert_eq!(gzip(&a).unwrap(), gzip(&a).unwrap());
        assert_eq!(xz(&a).unwrap(), xz(&a).unwrap());
    }

    #[test]
    fn gzip_and_xz_round_trip() {
        let tarball = tar(items(b"payload")).unwrap();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gzip(&tarball).unwrap().as_slice())
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, tarball);
        out.clear();
        liblzma::read::XzDecoder::new(xz(&tarball).unwrap().as_slice())
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, tarball);
    }

    #[test]
    fn a_zip_is_sorted_dated_once_deflated_and_the_same_every_time() {
        let bytes = zip(items(b"MZ payload")).unwrap();
        let mut reversed = items(b"MZ payload");
        reversed.reverse();
        assert_eq!(bytes, zip(reversed).unwrap());
        let mut archive = ::zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut seen = Vec::new();
        for i in 0..archive.len() {
            let mut file = archive.by_index(i).unwrap();
            let time = file.last_modified().unwrap();
            assert_eq!(
                (
                    time.year(),
                    time.month(),
                    time.day(),
                    time.hour(),
                    time.minute()
                ),
                (1985, 10, 26, 8, 15)
            );
            let mut body = Vec::new();
            file.read_to_end(&mut body).unwrap();
            let method = file.compression();
            seen.push((file.name().unwrap().into_owned(), method, body));
        }
        use ::zip::CompressionMethod::{Deflated, Stored};
        assert_eq!(
            seen,
            [
                ("top/".to_owned(), Stored, Vec::new()),
                ("top/README.md".to_owned(), Deflated, b"hi\n".to_vec()),
                ("top/bin".to_owned(), Deflated, b"MZ payload".to_vec()),
            ]
        );
    }
}
