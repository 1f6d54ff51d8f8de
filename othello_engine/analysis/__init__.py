"""Analysing positions and games with engine processes: positions in, records out, in input order.

:func:`parse_line` reads one input line (OBF, board string, FEN, move list, GGF game) into
positions; :func:`analyse_lines` runs them through engine processes (in parallel, or on a Ray
cluster) and yields :class:`Record` values in input order; the writers format them. The command
line is :mod:`othello_engine.cli.analyze` (``othello-analyze``).

Parts: ``inputs`` (reading), ``records`` (results and output formats), ``runner`` (one engine
slot: :class:`Worker`, :class:`Task`, :class:`WorkerSpec`), ``pipeline`` (the ordered run),
``remote`` (the Ray adapter, imported only with a cluster), ``plot`` (score graphs).
"""

from othello_engine.analysis.inputs import (FORMATS, MAX_ECHO, MAX_LINE, InputError, LongLine,
                                            Position, Source, bounded_lines, clip_input,
                                            detect_format, open_sources, parse_line)
from othello_engine.analysis.pipeline import READ_AHEAD, analyse_lines
from othello_engine.analysis.plot import plot_games
from othello_engine.analysis.records import (CsvWriter, JsonWriter, Line, Record, ResumeError,
                                             TableWriter, final_record, make_record, output_start,
                                             written_records)
from othello_engine.analysis.runner import (DEFAULT_ENGINE, Task, Worker, WorkerSpec, analyse_task,
                                            start_workers)

__all__ = [
    "FORMATS", "MAX_ECHO", "MAX_LINE", "InputError", "LongLine", "Position", "Source",
    "bounded_lines", "clip_input", "detect_format", "open_sources", "parse_line",
    "READ_AHEAD", "analyse_lines", "plot_games",
    "CsvWriter", "JsonWriter", "Line", "Record", "ResumeError", "TableWriter", "final_record",
    "make_record", "output_start", "written_records",
    "DEFAULT_ENGINE", "Task", "Worker", "WorkerSpec", "analyse_task", "start_workers",
]
