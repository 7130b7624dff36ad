//! SPEC §12 tests (being written).
