"""``python -m othello_engine``: the ``othello-engine`` command (:mod:`othello_engine.cli.engine`)."""

import sys

from othello_engine.cli.engine import main

if __name__ == "__main__":
    sys.exit(main())
