//! Progress of long work on stderr (an analysis, a program run under the agent): a spinner
//! naming the phase, a bar with its total and ETA while methods (or entry points) are analyzed
//! (indicatif draws nothing when stderr is not a terminal); `-q` hides it, `-v` also prints
//! each phase's time.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use membound_analysis::memrq::Step;

/// `-q` and `-v`, for every command that shows its progress.
#[derive(Debug, Args)]
pub(super) struct Verbosity {
    /// No progress display on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Also print each phase's time on stderr.
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
}

impl Verbosity {
    /// The display of a command's phases, as the flags ask.
    pub(super) fn progress(&self) -> Progress {
        Progress::new(self.quiet, self.verbose)
    }
}

pub(super) struct Progress {
    bar: ProgressBar,
    verbose: bool,
    /// The phase running and when it started.
    current: Mutex<Option<(String, Instant)>>,
}

impl Progress {
    fn new(quiet: bool, verbose: bool) -> Progress {
        let bar = ProgressBar::new_spinner();
        if quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(spinner_style());
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            verbose: verbose && !quiet,
            current: Mutex::new(None),
        }
    }

    /// A phase starts (the previous one ends).
    pub(super) fn phase(&self, name: &str) {
        self.end_phase();
        self.bar.set_style(spinner_style());
        self.bar.set_message(name.to_string());
        if let Ok(mut current) = self.current.lock() {
            *current = Some((name.to_string(), Instant::now()));
        }
    }

    /// What the analysis reports.
    pub(super) fn step(&self, step: Step) {
        match step {
            Step::Phase(name) => self.phase(name),
            Step::Summarizing(total) => {
                self.phase("summarizing methods");
                self.bar.set_position(0);
                self.bar.set_length(total as u64);
                self.bar.set_style(bar_style());
            }
            Step::Summarized => self.bar.inc(1),
        }
    }

    /// Prints `text` on stderr without tearing the display.
    pub(super) fn print(&self, text: &str) {
        self.bar.suspend(|| eprint!("{text}"));
    }

    /// Analyzing `total` entry points starts (`--entry-points`): a bar over them.
    pub(super) fn entries(&self, total: usize) {
        self.phase("analyzing the entry points");
        self.bar.set_position(0);
        self.bar.set_length(total as u64);
        self.bar.set_style(bar_style());
    }

    /// One more entry point analyzed.
    pub(super) fn entry_done(&self) {
        self.bar.inc(1);
    }

    /// A line that `-v` prints.
    pub(super) fn note(&self, line: &str) {
        if self.verbose {
            self.print(&format!("{line}\n"));
        }
    }

    pub(super) fn finish(&self) {
        self.end_phase();
        self.bar.finish_and_clear();
    }

    fn end_phase(&self) {
        let ended = self.current.lock().ok().and_then(|mut c| c.take());
        if let (true, Some((name, start))) = (self.verbose, ended) {
            let line = format!("membound: {name}: {:.2} s", start.elapsed().as_secs_f64());
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} [{elapsed}, about {eta} left]")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}
