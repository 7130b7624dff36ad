//! The gate's pure, OS-independent parts: run on every OS, Windows' rules included (SPEC §15.1).

use super::*;

#[test]
fn windows_device_names_are_known_on_every_os() {
    use std::ffi::OsStr;
    for name in [
        "CON",
        "con",
        "nul.txt",
        "NUL.tar.gz",
        "Aux",
        "prn.md",
        "COM1",
        "com9.log",
        "LPT3",
        "COM¹",
        "CON .md",
        "CONIN$",
    ] {
        assert!(reserved_device_name(OsStr::new(name)), "{name}");
    }
    for name in [
        "CONTEXT.md",
        "console",
        "nully",
        "COM10",
        "COM",
        "LPT",
        "info.md",
        ".megg",
        "con-fig",
        "aux_notes",
        "",
        "comx",
    ] {
        assert!(!reserved_device_name(OsStr::new(name)), "{name}");
    }
}

#[test]
fn home_is_home_then_the_windows_profile() {
    let s = |v: &str| Some(std::ffi::OsString::from(v));
    assert_eq!(
        home_from(s("/home/a"), s("C:\\Users\\a")),
        Some(PathBuf::from("/home/a"))
    );
    // PowerShell sets no HOME; an empty one counts as unset.
    assert_eq!(
        home_from(None, s("C:\\Users\\a")),
        Some(PathBuf::from("C:\\Users\\a"))
    );
    assert_eq!(
        home_from(s(""), s("C:\\Users\\a")),
        Some(PathBuf::from("C:\\Users\\a"))
    );
    assert_eq!(home_from(None, None), None);
}

#[test]
fn canonical_windows_paths_print_as_users_spell_them() {
    let p = |s: &str| as_spelled(PathBuf::from(s));
    assert_eq!(
        p(r"\\?\C:\Users\Ana\loja"),
        PathBuf::from(r"C:\Users\Ana\loja")
    );
    assert_eq!(p(r"\\?\UNC\srv\share\x"), PathBuf::from(r"\\srv\share\x"));
    // Not a drive: a volume GUID path has no shorter spelling.
    assert_eq!(p(r"\\?\Volume{0b1}\x"), PathBuf::from(r"\\?\Volume{0b1}\x"));
    assert_eq!(p("/home/ana/loja"), PathBuf::from("/home/ana/loja"));
}
