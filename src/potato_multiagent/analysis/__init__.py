"""Data out: tidy tables per scheme (export) and agreement figures, over one reading of a task.

:func:`collect` reads every saved value once (valid rows, invalid values, values hidden by
``display_logic``); :mod:`.export` writes the tables and :mod:`.agreement` computes the figures
through each annotation type's adapter (``types/<type>/adapter.py``, on the contract in ``types/_base/adapter.py``).
"""

from .agreement import agreement_frame
from .collect import Collection, SchemeTable, collect
from .export import ExportError, export_collection
from .gold import GoldError, read_gold

__all__ = ["Collection", "ExportError", "GoldError", "SchemeTable", "agreement_frame", "collect",
           "export_collection", "read_gold"]
