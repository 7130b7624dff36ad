//! Regression tests for defects in the domain's pure functions (knowledge, state, frontmatter,
//! maintain, init), each named after the defect it pins.
