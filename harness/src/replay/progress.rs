//! What a replay shows on stderr while it works.

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner on stderr saying what is being done, cleared when dropped (on every path out of the work).
pub struct Spinner(ProgressBar);

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A [`Spinner`] showing `message` and the time elapsed, ticking every 100 ms; `None` draws nothing. Drawn
/// only when stderr is a terminal (indicatif's stderr target), so piped output stays clean.
pub fn spinner(message: Option<String>) -> Spinner {
    let Some(message) = message else {
        return Spinner(ProgressBar::hidden());
    };
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(100));
    Spinner(bar)
}
