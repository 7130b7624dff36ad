//! Regression tests for the hook budget, the systemMessage bound, setup's uninstall and the
//! templates' handling of agent text, each named after the defect it pins.
