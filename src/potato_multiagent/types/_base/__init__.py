"""What every type folder shares: the base Config and Scheme, JSON integers, the one wording of
the common problems, and what a migration returns. (The export/agreement contract a type's
``adapter.py`` fulfils is :class:`potato_multiagent.types._base.adapter.Adapter`.)"""

from .migration import Outcome
from .words import Problem, problem, say
from .refs import StepReference, agent_words, is_stale, json_ref, put_ref, refs_of, stale_references, step_problems
from .scheme import (MAX_TEXT, FreeText, JsonInt, Labels, NonNegativeJsonInt, Scheme, SchemeConfig, StepIndex, above_bound, field_path,
                     format_validation_error, json_int, no_repeats, not_in_trace, unique_list)

__all__ = ["MAX_TEXT", "FreeText", "JsonInt", "Labels", "NonNegativeJsonInt", "Outcome", "Scheme", "SchemeConfig", "StepIndex", "StepReference",
           "Problem", "above_bound", "problem", "say", "agent_words", "field_path", "format_validation_error", "is_stale", "json_int", "json_ref", "no_repeats",
           "not_in_trace", "put_ref", "refs_of", "stale_references", "step_problems", "unique_list"]
