//! Hostile repositories (SPEC §9): each test builds a repository that tries to make megg read,
//! inject or write something outside it, and shows that nothing left the box and that the hook
//! still printed one valid JSON document.
