"""The package's command-line programs, one module each: argument parsing and output only."""
