//! `congsim-native`: the Rust command-line runner. It reads the same scenario files as the
//! Python `congsim` command and is what benchmarks time, since it has no interpreter start-up.

use clap::{Parser, Subcommand};
use congsim::scenario::{self, Scenario};
use congsim::table::Table;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "congsim-native",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("CONGSIM_BUILD_COMMIT"), ")"),
    about = "congsim native runner: run, validate, schema"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print its summary.
    Run {
        file: PathBuf,
        /// Write flows.csv, links.csv, summary.csv (and series) into this folder.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replication index (selects the random streams).
        #[arg(long, default_value_t = 0)]
        replication: u32,
        /// Print only the summary line.
        #[arg(long)]
        quiet: bool,
    },
    /// Check a scenario file and report the first problem.
    Validate { file: PathBuf },
    /// Print the JSON Schema of the scenario format.
    Schema,
}

fn write_tables(dir: &Path, tables: &[(&str, Option<&Table>)]) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
    for (name, table) in tables {
        if let Some(t) = table {
            let path = dir.join(format!("{name}.csv"));
            std::fs::write(&path, t.to_csv())
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn write_captures(dir: &Path, captures: &[(String, Vec<u8>)]) -> Result<(), String> {
    for (file, bytes) in captures {
        let path = dir.join(file);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(())
}

fn print_warnings(s: &Scenario) {
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
}

fn load(file: &Path) -> Result<Scenario, String> {
    scenario::load_file(file).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Schema => {
            println!("{}", scenario::json_schema());
            Ok(())
        }
        Command::Validate { file } => load(&file).map(|s| {
            print_warnings(&s);
            println!("{}: ok ({})", file.display(), s.describe());
        }),
        Command::Run {
            file,
            out,
            replication,
            quiet,
        } => load(&file).and_then(|s| {
            // The output folder is made before the run: a bad --out costs no simulation.
            if let Some(dir) = &out {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
            }
            print_warnings(&s);
            let result = congsim::run(&s, replication);
            if !quiet {
                print!("{}", result.flows.to_csv());
            }
            print!("{}", result.summary.to_csv());
            match out {
                Some(dir) => write_tables(&dir, &result.tables())
                    .and_then(|()| write_captures(&dir, &result.captures)),
                None => Ok(()),
            }
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
