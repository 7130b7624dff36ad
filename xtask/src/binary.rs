//! Is this binary what the target's users can run? The object format and CPU the target names
//! and, on Linux, static linking: a release binary with an ELF interpreter or a needed shared
//! library runs on the build machine and nowhere else (SPEC §15: Linux binaries are static).
//! On Windows, a C runtime that is not part of Windows: a megg.exe importing the Visual C++
//! redistributable's DLLs (built without `+crt-static`) or mingw-w64's runs only where they
//! happen to be installed (SPEC §15.1).

use crate::target::{Arch, Os, Target};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BinaryError {
    #[error("not a 64-bit little-endian ELF executable")]
    NotElf64,
    #[error("not a 64-bit Mach-O executable")]
    NotMachO64,
    #[error("not a PE executable")]
    NotPe,
    #[error("built for PE machine {found:#06x}, not {want:#06x}")]
    WrongPeMachine { found: u16, want: u16 },
    #[error("a DLL, not an executable")]
    Dll,
    #[error("it needs {0}, which Windows does not ship: build with -C target-feature=+crt-static")]
    CRuntime(String),
    #[error("its headers are cut short")]
    Truncated,
    #[error("built for ELF machine {found}, not {want}")]
    WrongMachine { found: u16, want: u16 },
    #[error("built for Mach-O CPU {found:#x}, not {want:#x}")]
    WrongCpu { found: u32, want: u32 },
    #[error("dynamically linked: {0}")]
    Dynamic(&'static str),
}

const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;
const DT_NEEDED: u64 = 1;
const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;
const MH_MAGIC_64: u32 = 0xfeed_facf;
const CPU_TYPE_X86_64: u32 = 0x0100_0007;
const CPU_TYPE_ARM64: u32 = 0x0100_000c;
const IMAGE_FILE_MACHINE_AMD64: u16 = 0x8664;
const IMAGE_FILE_MACHINE_ARM64: u16 = 0xaa64;
const IMAGE_FILE_EXECUTABLE_IMAGE: u16 = 0x0002;
const IMAGE_FILE_DLL: u16 = 0x2000;
const PE32_PLUS: u16 = 0x20b;
/// DLLs of a C runtime that Windows does not ship, by the start of their name (lower case): the
/// Visual C++ redistributable's and mingw-w64's.
const FOREIGN_RUNTIMES: [&str; 8] = [
    "vcruntime",
    "msvcp",
    "concrt",
    "vccorlib",
    "libgcc_s",
    "libwinpthread",
    "libstdc++",
    "libssp",
];

/// Checks `bytes` is a binary `target` can ship.
pub fn check(target: Target, bytes: &[u8]) -> Result<(), BinaryError> {
    match target.os() {
        Os::Linux => check_elf(target.arch(), bytes),
        Os::Darwin => check_macho(target.arch(), bytes),
        Os::Windows => check_pe(target.arch(), bytes),
    }
}

fn check_elf(arch: Arch, bytes: &[u8]) -> Result<(), BinaryError> {
    // 64-bit little-endian ELF: both release architectures are.
    if bytes.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        return Err(BinaryError::NotElf64);
    }
    let machine = u16_at(bytes, 18).ok_or(BinaryError::Truncated)?;
    let want = match arch {
        Arch::X86_64 => EM_X86_64,
        Arch::Aarch64 => EM_AARCH64,
    };
    if machine != want {
        return Err(BinaryError::WrongMachine {
            found: machine,
            want,
        });
    }
    let phoff = u64_at(bytes, 32).ok_or(BinaryError::Truncated)?;
    let phentsize = u16_at(bytes, 54).ok_or(BinaryError::Truncated)?;
    let phnum = u16_at(bytes, 56).ok_or(BinaryError::Truncated)?;
    for i in 0..u64::from(phnum) {
        let at = offset(phoff + i * u64::from(phentsize))?;
        let kind = u32_at(bytes, at).ok_or(BinaryError::Truncated)?;
        if kind == PT_INTERP {
            return Err(BinaryError::Dynamic(
                "it names an ELF interpreter (PT_INTERP)",
            ));
        }
        // A static-pie binary has a dynamic section (it relocates itself) but needs nothing.
        if kind == PT_DYNAMIC {
            let start = u64_at(bytes, at + 8).ok_or(BinaryError::Truncated)?;
            let size = u64_at(bytes, at + 32).ok_or(BinaryError::Truncated)?;
            for entry in (start..start + size).step_by(16) {
                let tag = u64_at(bytes, offset(entry)?).ok_or(BinaryError::Truncated)?;
                match tag {
                    0 => break,
                    DT_NEEDED => {
                        return Err(BinaryError::Dynamic(
                            "it needs a shared library (DT_NEEDED)",
                        ));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

fn check_macho(arch: Arch, bytes: &[u8]) -> Result<(), BinaryError> {
    if u32_at(bytes, 0) != Some(MH_MAGIC_64) {
        return Err(BinaryError::NotMachO64);
    }
    let cpu = u32_at(bytes, 4).ok_or(BinaryError::Truncated)?;
    let want = match arch {
        Arch::X86_64 => CPU_TYPE_X86_64,
        Arch::Aarch64 => CPU_TYPE_ARM64,
    };
    if cpu != want {
        return Err(BinaryError::WrongCpu { found: cpu, want });
    }
    Ok(())
}

fn check_pe(arch: Arch, bytes: &[u8]) -> Result<(), BinaryError> {
    if bytes.get(..2) != Some(b"MZ".as_slice()) {
        return Err(BinaryError::NotPe);
    }
    let pe = u32_at(bytes, 0x3c).ok_or(BinaryError::NotPe)? as usize;
    if bytes.get(pe..pe + 4) != Some(b"PE\0\0".as_slice()) {
        return Err(BinaryError::NotPe);
    }
    // The COFF header follows the signature.
    let coff = pe + 4;
    let machine = u16_at(bytes, coff).ok_or(BinaryError::Truncated)?;
    let want = match arch {
        Arch::X86_64 => IMAGE_FILE_MACHINE_AMD64,
        Arch::Aarch64 => IMAGE_FILE_MACHINE_ARM64,
    };
    if machine != want {
        return Err(BinaryError::WrongPeMachine {
            found: machine,
            want,
        });
    }
    let characteristics = u16_at(bytes, coff + 18).ok_or(BinaryError::Truncated)?;
    if characteristics & IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
        return Err(BinaryError::NotPe);
    }
    if characteristics & IMAGE_FILE_DLL != 0 {
        return Err(BinaryError::Dll);
    }
    for dll in pe_imports(bytes, coff)? {
        let lower = dll.to_ascii_lowercase();
        if FOREIGN_RUNTIMES.iter().any(|r| lower.starts_with(r)) {
            return Err(BinaryError::CRuntime(dll));
        }
    }
    Ok(())
}

/// The names of the DLLs a 64-bit PE image imports (its import directory's entries).
fn pe_imports(bytes: &[u8], coff: usize) -> Result<Vec<String>, BinaryError> {
    let sections = u16_at(bytes, coff + 2).ok_or(BinaryError::Truncated)?;
    let optional_size = u16_at(bytes, coff + 16).ok_or(BinaryError::Truncated)?;
    let optional = coff + 20;
    if u16_at(bytes, optional) != Some(PE32_PLUS) {
        return Err(BinaryError::NotPe);
    }
    let directories = u32_at(bytes, optional + 108).ok_or(BinaryError::Truncated)?;
    // Data directory 1 is the import table: its RVA, at 112 + 8 in PE32+'s optional header.
    if directories < 2 {
        return Ok(Vec::new());
    }
    let import_rva = u32_at(bytes, optional + 120).ok_or(BinaryError::Truncated)?;
    if import_rva == 0 {
        return Ok(Vec::new());
    }
    let table = optional + usize::from(optional_size);
    // (virtual address, virtual size, file offset) of each section, to find an RVA in the file.
    let mut map = Vec::new();
    for i in 0..usize::from(sections) {
        let header = table + i * 40;
        let size = u32_at(bytes, header + 8).ok_or(BinaryError::Truncated)?;
        let address = u32_at(bytes, header + 12).ok_or(BinaryError::Truncated)?;
        let raw_size = u32_at(bytes, header + 16).ok_or(BinaryError::Truncated)?;
        let raw = u32_at(bytes, header + 20).ok_or(BinaryError::Truncated)?;
        map.push((address, size.max(raw_size), raw));
    }
    let file_offset = |rva: u32| -> Result<usize, BinaryError> {
        map.iter()
            .find(|(address, size, _)| rva >= *address && rva - address < *size)
            .map(|(address, _, raw)| (rva - address + raw) as usize)
            .ok_or(BinaryError::Truncated)
    };
    let mut names = Vec::new();
    // Import descriptors of 20 bytes, ended by one of zeros; the name's RVA is at 12.
    let mut at = file_offset(import_rva)?;
    loop {
        let descriptor = bytes.get(at..at + 20).ok_or(BinaryError::Truncated)?;
        if descriptor.iter().all(|b| *b == 0) {
            break;
        }
        let name_rva = u32_at(bytes, at + 12).ok_or(BinaryError::Truncated)?;
        let start = file_offset(name_rva)?;
        let rest = bytes.get(start..).ok_or(BinaryError::Truncated)?;
        let end = rest
            .iter()
            .position(|b| *b == 0)
            .ok_or(BinaryError::Truncated)?;
        names.push(String::from_utf8_lossy(rest.get(..end).unwrap_or_default()).into_owned());
        at += 20;
    }
    Ok(names)
}

fn offset(at: u64) -> Result<usize, BinaryError> {
    usize::try_from(at).map_err(|_| BinaryError::Truncated)
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// The smallest binary `check` accepts for `target`: a header and nothing else. Tests package
/// it in place of megg.
#[cfg(test)]
pub fn fake(target: Target) -> Vec<u8> {
    match target.os() {
        Os::Linux => {
            let mut elf = vec![0u8; 64];
            elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
            let machine = match target.arch() {
                Arch::X86_64 => EM_X86_64,
                Arch::Aarch64 => EM_AARCH64,
            };
            elf[18..20].copy_from_slice(&machine.to_le_bytes());
            elf[54..56].copy_from_slice(&56u16.to_le_bytes());
            elf
        }
        Os::Darwin => {
            let cpu = match target.arch() {
                Arch::X86_64 => CPU_TYPE_X86_64,
                Arch::Aarch64 => CPU_TYPE_ARM64,
            };
            [MH_MAGIC_64.to_le_bytes(), cpu.to_le_bytes()].concat()
        }
        Os::Windows => fake_pe(target.arch(), &[]),
    }
}

/// A PE32+ executable of `arch` whose one section holds an import table naming `dlls`.
#[cfg(test)]
pub fn fake_pe(arch: Arch, dlls: &[&str]) -> Vec<u8> {
    const PE: usize = 0x40;
    const OPTIONAL: usize = PE + 24;
    const OPTIONAL_SIZE: usize = 240;
    const SECTION: usize = OPTIONAL + OPTIONAL_SIZE;
    const DATA: usize = 0x200;
    const RVA: usize = 0x1000;
    let mut pe = vec![0u8; DATA];
    pe[..2].copy_from_slice(b"MZ");
    pe[0x3c..0x40].copy_from_slice(&(PE as u32).to_le_bytes());
    pe[PE..PE + 4].copy_from_slice(b"PE\0\0");
    let machine = match arch {
        Arch::X86_64 => IMAGE_FILE_MACHINE_AMD64,
        Arch::Aarch64 => IMAGE_FILE_MACHINE_ARM64,
    };
    pe[PE + 4..PE + 6].copy_from_slice(&machine.to_le_bytes());
    pe[PE + 6..PE + 8].copy_from_slice(&1u16.to_le_bytes());
    pe[PE + 20..PE + 22].copy_from_slice(&(OPTIONAL_SIZE as u16).to_le_bytes());
    pe[PE + 22..PE + 24].copy_from_slice(&(IMAGE_FILE_EXECUTABLE_IMAGE | 0x20).to_le_bytes());
    pe[OPTIONAL..OPTIONAL + 2].copy_from_slice(&PE32_PLUS.to_le_bytes());
    pe[OPTIONAL + 108..OPTIONAL + 112].copy_from_slice(&16u32.to_le_bytes());
    // The section: descriptors first (one per DLL and the zero one), then the names.
    let mut data = vec![0u8; (dlls.len() + 1) * 20];
    for (i, dll) in dlls.iter().enumerate() {
        let name_rva = (RVA + data.len()) as u32;
        data[i * 20 + 12..i * 20 + 16].copy_from_slice(&name_rva.to_le_bytes());
        data.extend(dll.as_bytes());
        data.push(0);
    }
    if !dlls.is_empty() {
        pe[OPTIONAL + 120..OPTIONAL + 124].copy_from_slice(&(RVA as u32).to_le_bytes());
    }
    let size = (data.len() as u32).to_le_bytes();
    pe[SECTION..SECTION + 6].copy_from_slice(b".idata");
    pe[SECTION + 8..SECTION + 12].copy_from_slice(&size);
    pe[SECTION + 12..SECTION + 16].copy_from_slice(&(RVA as u32).to_le_bytes());
    pe[SECTION + 16..SECTION + 20].copy_from_slice(&size);
    pe[SECTION + 20..SECTION + 24].copy_from_slice(&(DATA as u32).to_le_bytes());
    pe.extend(data);
    pe
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fake`'s ELF with one program header of `kind` pointing at `segment`.
    fn elf_with_segment(kind: u32, segment: &[u8]) -> Vec<u8> {
        let mut elf = fake(Target::X86_64LinuxMusl);
        elf[32..40].copy_from_slice(&64u64.to_le_bytes());
        elf[56..58].copy_from_slice(&1u16.to_le_bytes());
        let mut header = vec![0u8; 56];
        header[..4].copy_from_slice(&kind.to_le_bytes());
        header[8..16].copy_from_slice(&120u64.to_le_bytes());
        header[32..40].copy_from_slice(&(segment.len() as u64).to_le_bytes());
        elf.extend(header);
        elf.extend(segment);
        elf
    }

    fn dynamic_entry(tag: u64, value: u64) -> Vec<u8> {
        [tag.to_le_bytes(), value.to_le_bytes()].concat()
    }

    #[test]
    fn a_header_only_elf_of_the_right_machine_is_static() {
        assert_eq!(
            check(Target::X86_64LinuxMusl, &fake(Target::X86_64LinuxMusl)),
            Ok(())
        );
        assert_eq!(
            check(Target::Aarch64LinuxMusl, &fake(Target::Aarch64LinuxMusl)),
            Ok(())
        );
    }

    #[test]
    fn an_interpreter_makes_it_dynamic() {
        let elf = elf_with_segment(PT_INTERP, b"/lib/ld-musl-x86_64.so.1\0");
        let err = check(Target::X86_64LinuxMusl, &elf).unwrap_err();
        assert!(matches!(err, BinaryError::Dynamic(_)), "{err}");
    }

    #[test]
    fn a_static_pie_dynamic_section_passes_until_it_needs_a_library() {
        let static_pie = [dynamic_entry(0x6ffffffb, 0), dynamic_entry(0, 0)].concat();
        let elf = elf_with_segment(PT_DYNAMIC, &static_pie);
        assert_eq!(check(Target::X86_64LinuxMusl, &elf), Ok(()));

        let needs_libc = [dynamic_entry(DT_NEEDED, 1), dynamic_entry(0, 0)].concat();
        let elf = elf_with_segment(PT_DYNAMIC, &needs_libc);
        let err = check(Target::X86_64LinuxMusl, &elf).unwrap_err();
        assert_eq!(
            err.to_string(),
            "dynamically linked: it needs a shared library (DT_NEEDED)"
        );
    }

    #[test]
    fn the_wrong_architecture_or_format_is_refused() {
        let err = check(Target::Aarch64LinuxMusl, &fake(Target::X86_64LinuxMusl)).unwrap_err();
        assert_eq!(
            err,
            BinaryError::WrongMachine {
                found: EM_X86_64,
                want: EM_AARCH64
            }
        );
        let err = check(Target::X86_64LinuxMusl, &fake(Target::X86_64Darwin)).unwrap_err();
        assert_eq!(err, BinaryError::NotElf64);
        let err = check(Target::Aarch64Darwin, &fake(Target::X86_64Darwin)).unwrap_err();
        assert_eq!(
            err,
            BinaryError::WrongCpu {
                found: CPU_TYPE_X86_64,
                want: CPU_TYPE_ARM64
            }
        );
        assert_eq!(
            check(Target::X86_64LinuxMusl, b"#!/bin/sh\n"),
            Err(BinaryError::NotElf64)
        );
        assert_eq!(
            check(Target::X86_64LinuxMusl, b"\x7fELF\x02\x01"),
            Err(BinaryError::Truncated)
        );
    }

    /// This test binary is a glibc build: dynamic, with an interpreter.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
    #[test]
    fn a_glibc_build_is_dynamic() {
        let bytes = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let err = check(Target::X86_64LinuxMusl, &bytes).unwrap_err();
        assert!(matches!(err, BinaryError::Dynamic(_)), "{err}");
    }

    fn windows(triple: &str) -> Target {
        triple.parse().unwrap()
    }

    #[test]
    fn a_pe_executable_of_the_right_machine_with_windows_own_dlls_ships() {
        let x64 = windows("x86_64-pc-windows-msvc");
        let arm64 = windows("aarch64-pc-windows-msvc");
        assert_eq!(check(x64, &fake(x64)), Ok(()));
        assert_eq!(check(arm64, &fake(arm64)), Ok(()));
        // mingw-w64's std links msvcrt.dll, which every Windows has.
        let gnu = fake_pe(
            Arch::X86_64,
            &["KERNEL32.dll", "msvcrt.dll", "bcryptprimitives.dll"],
        );
        assert_eq!(check(windows("x86_64-pc-windows-gnu"), &gnu), Ok(()));
    }

    #[test]
    fn a_pe_needing_a_c_runtime_windows_lacks_is_refused() {
        let x64 = windows("x86_64-pc-windows-msvc");
        for dll in [
            "VCRUNTIME140.dll",
            "msvcp140.dll",
            "libgcc_s_seh-1.dll",
            "libwinpthread-1.dll",
        ] {
            let exe = fake_pe(Arch::X86_64, &["KERNEL32.dll", dll]);
            assert_eq!(
                check(x64, &exe),
                Err(BinaryError::CRuntime(dll.to_owned())),
                "{dll}"
            );
        }
        let err = check(x64, &fake_pe(Arch::X86_64, &["VCRUNTIME140.dll"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "it needs VCRUNTIME140.dll, which Windows does not ship: build with \
             -C target-feature=+crt-static"
        );
    }

    #[test]
    fn the_wrong_machine_a_dll_or_no_pe_is_refused() {
        let x64 = windows("x86_64-pc-windows-msvc");
        assert_eq!(
            check(x64, &fake(windows("aarch64-pc-windows-msvc"))),
            Err(BinaryError::WrongPeMachine {
                found: IMAGE_FILE_MACHINE_ARM64,
                want: IMAGE_FILE_MACHINE_AMD64
            })
        );
        let mut dll = fake(x64);
        dll[0x40 + 22] |= 0x00;
        dll[0x40 + 23] |= 0x20;
        assert_eq!(check(x64, &dll), Err(BinaryError::Dll));
        assert_eq!(
            check(x64, &fake(Target::X86_64LinuxMusl)),
            Err(BinaryError::NotPe)
        );
        assert_eq!(check(x64, b"MZ"), Err(BinaryError::NotPe));
    }

    /// A release build of megg.exe made here with mingw-w64 (`MEGG_WINDOWS_EXE`, else the one in
    /// target/), when there is one: its real import table passes.
    #[test]
    fn a_mingw_build_of_megg_exe_passes_when_built_here() {
        let built = std::env::var_os("MEGG_WINDOWS_EXE")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../target/x86_64-pc-windows-gnu/release/megg.exe")
            });
        let Ok(bytes) = std::fs::read(&built) else {
            println!("skipped: no {}", built.display());
            return;
        };
        assert_eq!(check(windows("x86_64-pc-windows-gnu"), &bytes), Ok(()));
        let coff = u32_at(&bytes, 0x3c).unwrap() as usize + 4;
        let dlls = pe_imports(&bytes, coff).unwrap();
        assert!(dlls.iter().any(|d| d == "msvcrt.dll"), "{dlls:?}");
        assert_eq!(
            check(windows("aarch64-pc-windows-msvc"), &bytes),
            Err(BinaryError::WrongPeMachine {
                found: IMAGE_FILE_MACHINE_AMD64,
                want: IMAGE_FILE_MACHINE_ARM64
            })
        );
    }
}
