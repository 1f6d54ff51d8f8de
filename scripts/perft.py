#!/usr/bin/env python3
"""Perft from the command line: the same as ``othello-engine perft`` (see its --help)."""

import sys

from othello_engine.cli.perft import main

if __name__ == "__main__":
    sys.exit(main())
