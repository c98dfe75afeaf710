//! Locking that shrugs off poisoning.

/// Locks a std mutex, ignoring poisoning: the state it guards stays consistent at every await-free
/// step, so a panic elsewhere does not make it unusable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
