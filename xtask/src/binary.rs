//! Is this binary what the target's users can run? The object format and CPU the target names
//! and, on Linux, static linking: a release binary with an ELF interpreter or a needed shared
//! library runs on the build machine and nowhere else (SPEC §15: Linux binaries are static).

use crate::target::{Arch, Os, Target};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BinaryError {
    #[error("not a 64-bit little-endian ELF executable")]
    NotElf64,
    #[error("not a 64-bit Mach-O executable")]
    NotMachO64,
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

/// Checks `bytes` is a binary `target` can ship.
pub fn check(target: Target, bytes: &[u8]) -> Result<(), BinaryError> {
    match target.os() {
        Os::Linux => check_elf(target.arch(), bytes),
        Os::Darwin => check_macho(target.arch(), bytes),
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
    }
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
}
