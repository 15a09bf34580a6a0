"""``potato-multiagent judge``: an LLM judge of failure attribution and of failure modes, beside the human.

Methods (``methods.py``): Who&When's ``all-at-once``, ``step-by-step`` and ``binary-search`` with
their prompts (``prompts.py``, credited there), ``structured`` (one JSON answer checked by a
pydantic model, with ranked plausible steps), and ``mast`` (a ``multiagent.mast`` scheme's
taxonomy: the run's modes and the steps they show on, one JSON answer checked the same way). The
model is one of Potato's AI endpoints (``model.py``); a batch (``batch.py``) writes a judgments
file run by run and resumes; ``into_task`` puts the result into a task, hidden until the
annotator has answered. docs/judge.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, List

import yaml

from .batch import Batch, log_path, run_batch
from .methods import CALLS, CONTEXT, METHODS, Settings
from .model import Model, ModelError

ATTRIBUTION = "multiagent.failure_attribution"
MAST = "multiagent.mast"


def judged_type(method: str) -> str:
    """The scheme type a method answers for."""
    return MAST if method == "mast" else ATTRIBUTION

__all__ = ["Batch", "CALLS", "CONTEXT", "METHODS", "Model", "ModelError", "Settings", "judge_command",
           "log_path", "run_batch"]


class UsageError(Exception):
    """Options that do not fit together (the message says which)."""


def judge_command(args) -> int:
    """The CLI's ``judge``: read the runs, build the model, run the batch, report."""
    from ..analysis import GoldError, read_gold
    from ..convert import ConvertError
    from ..judgments import JudgmentError
    from ..task import TaskError

    import logging

    for name in ("httpx", "httpx2", "openai"):   # one INFO line per request: Potato's import logs at INFO
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        task, records, scheme = _runs(args)
        model = Model(_ai_support(args, task))
        references = read_gold(Path(args.reference)) if args.reference else None
    except (UsageError, ModelError, TaskError, GoldError, ConvertError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    source = args.source or f"{model.name} {args.method}"
    batch = Batch(args.method, source, scheme, Settings(model, args.k, args.context_tokens or None, args.overlap),
                  show=not args.hidden, problem_key=args.task_key, references=references,
                  id_key=task.id_key if task else "id")
    out = Path(args.output)
    summary = run_batch(batch, records, out, progress=lambda line: print(line, file=sys.stderr)
                        if args.verbose else None)
    counts = summary.counts
    for line in summary.lines:
        print(line, file=sys.stderr)
    untried = f", {counts['not tried']} not tried" if counts.get("not tried") else ""
    print(f"{source}: judged {counts['judged']}, unparseable {counts['unparseable']}, refused {counts['refused']}, "
          f"failed {counts['failed']}{untried}; {counts['skipped']} already done (skipped)")
    print(f"judgments: {out}; every run: {log_path(out)}")
    if args.into_task:
        from ..judgments import read_judgments
        from .into_task import write_into_task

        mine = [j for j in read_judgments(out) if j.source == source and j.scheme == scheme["name"]]
        try:
            print("\n".join(write_into_task(task, mine, str(scheme["name"]), args.judgments_key)))
        except JudgmentError as error:
            for line in error.problems:
                print(f"error: {line}", file=sys.stderr)
            return 1
    if counts["failed"]:
        print(f"note: {counts['failed']} run(s) failed at the endpoint; run the same command again to retry them"
              f"{' and judge the rest' if untried else ''}", file=sys.stderr)
        return 1
    return 0


def _runs(args):
    """``(task or None, records, scheme config)`` from ``--config`` or from record/trace files."""
    from ..task import Task, read_records

    kind = judged_type(args.method)
    if args.modes_file and kind != MAST:
        raise UsageError("--modes-file is for --method mast")
    if args.config:
        if args.inputs:
            raise UsageError("give either --config TASK or record files, not both")
        if args.modes_file:
            raise UsageError("--modes-file is for record files; with --config the scheme's taxonomy or modes_file "
                             "is used")
        task = Task(args.config)
        schemes = [s for s in task.our_schemes() if s.get("annotation_type") == kind]
        found = ", ".join(str(s.get("name")) for s in schemes) or "none"
        if args.scheme:
            schemes = [s for s in schemes if s.get("name") == args.scheme]
        if len(schemes) != 1:
            named = f" named {args.scheme!r}" if args.scheme else ""
            raise UsageError(f"{args.config}: expected one {kind} scheme{named} (found: {found}); name it with --scheme")
        return task, list(task.records().values()), _checked(schemes[0], args.config)
    if args.into_task:
        raise UsageError("--into-task needs --config TASK")
    if not args.inputs:
        raise UsageError("give record files (or trace files with --from FORMAT), or --config TASK")
    from ..trace import DeriveOptions

    if kind == MAST:
        chosen = {"annotation_type": MAST, "name": args.scheme or "mast", "description": "MAST failure modes",
                  **({"modes_file": str(Path(args.modes_file).resolve())} if args.modes_file else {})}
    else:
        chosen = {"annotation_type": ATTRIBUTION, "name": args.scheme or "attribution",
                  "description": "Which agent caused the failure, and at which step?"}
    scheme = _checked({**chosen, **{name: getattr(args, name) for name in DeriveOptions.model_fields}}, "options")
    if args.format:
        from ..convert import convert_inputs

        conversion = convert_inputs(args.format, [Path(name) for name in args.inputs])
        for error in conversion.skipped:
            print(f"skipped: {error}", file=sys.stderr)
        return None, list(conversion.records), scheme
    records: List[dict] = []
    for name in args.inputs:
        records.extend(record for record in read_records(Path(name)) if isinstance(record, dict))
    return None, records, scheme


def _checked(scheme: dict, where: str) -> dict:
    from ..types import scheme_for

    config, problems = scheme_for(str(scheme["annotation_type"])).parse_config(scheme)
    if config is None:
        raise UsageError(f"{where}: scheme {scheme.get('name')!r}: {'; '.join(problems)}")
    return scheme


def _ai_support(args, task) -> Dict[str, Any]:
    """Potato's ``ai_support`` block: from ``--ai-config`` (a YAML file holding one, such as a Potato
    config), else the task's own, with ``--endpoint-type``, ``--model`` and ``--base-url`` over it."""
    block: Dict[str, Any] = {}
    if args.ai_config:
        from ..files import read_text

        loaded = yaml.safe_load(read_text(args.ai_config)) or {}
        block = dict(loaded.get("ai_support") or {}) if isinstance(loaded, dict) else {}
        if not block:
            raise UsageError(f"{args.ai_config}: no ai_support block (Potato's: endpoint_type, ai_config)")
    elif task is not None and isinstance(task.config.get("ai_support"), dict):
        block = dict(task.config["ai_support"])
    ai_config: Dict[str, Any] = dict(block.get("ai_config") or {})
    if args.endpoint_type:
        block["endpoint_type"] = args.endpoint_type
    if args.model:
        ai_config["model"] = args.model
    if args.base_url:
        ai_config["base_url"] = args.base_url
    block["ai_config"] = ai_config
    return block


def add_arguments(parser) -> None:
    """The ``judge`` subcommand's options (cli.py builds the parser)."""
    parser.add_argument("inputs", nargs="*", metavar="FILE", help="record files (JSON/JSONL), or trace files with "
                                                                  "--from FORMAT; or use --config TASK")
    parser.add_argument("--config", help="judge the records of this task (its failure-attribution scheme; with "
                                         "--method mast, its multiagent.mast scheme)")
    parser.add_argument("--from", dest="format", metavar="FORMAT", help="convert the files first (as `convert`)")
    parser.add_argument("--method", required=True, choices=list(METHODS))
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the judgments file (appended to; runs already in it are skipped)")
    parser.add_argument("--scheme", help="the scheme judged (default: the task's only attribution scheme, or "
                                         "only mast scheme with --method mast; without --config: 'attribution', "
                                         "'mast')")
    parser.add_argument("--modes-file", metavar="FILE", help="mast, with record files: another taxonomy (a "
                                                             "modes_file; see: potato-multiagent docs types/mast); "
                                                             "default: Potato's MAST")
    parser.add_argument("--source", help="the judge's name in the judgments (default: 'MODEL METHOD')")
    parser.add_argument("--hidden", action="store_true", help="for evaluation only (show: false)")
    parser.add_argument("--ai-config", metavar="FILE", help="a YAML file with Potato's ai_support block (a Potato "
                                                            "config will do); default: the task's")
    parser.add_argument("--endpoint-type", help="Potato's endpoint_type: openai, vllm, ollama, anthropic, ...")
    parser.add_argument("--model", help="ai_config.model")
    parser.add_argument("--base-url", help="ai_config.base_url (an OpenAI-compatible server)")
    parser.add_argument("--reference", metavar="GOLD", help="a gold file whose ground_truth (the run's correct "
                                                            "answer) the prompts give, as Who&When's 'with ground "
                                                            "truth' setting")
    parser.add_argument("--task-key", help="the record field holding the problem (default: the first of "
                                           "question, task, query, problem, prompt, instruction, goal)")
    parser.add_argument("-k", type=int, default=5, help="structured: ranked steps asked for (default 5)")
    parser.add_argument("--context-tokens", type=int, default=128000,
                        help="the model's context in tokens (default 128000; 0: no check)")
    parser.add_argument("--overlap", type=int, default=2, help="structured, mast: steps shared by consecutive "
                                                               "parts of a run too long for the context (default 2)")
    parser.add_argument("--into-task", action="store_true", help="with --config: put the shown judgments into "
                                                                 "the task's records (show_judgments: after_answer)")
    parser.add_argument("--judgments-key", default="judgments", metavar="KEY", help="with --into-task: the record "
                                                                                   "field (default: judgments)")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per run on stderr")


def describe_methods() -> str:
    return "\n".join(f"  {name:14} calls: {CALLS[name]}; too long: {CONTEXT[name]}" for name in METHODS)

