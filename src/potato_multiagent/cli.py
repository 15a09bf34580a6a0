"""The ``potato-multiagent`` command: thin argument parsing over the library."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Callable, List, Optional

from .trace import DeriveOptions, derive


def _derive_command(args: argparse.Namespace) -> int:
    from .task import TaskError, read_records

    try:
        records = read_records(Path(args.file))
    except TaskError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.id is not None:
        matches = [r for r in records if isinstance(r, dict) and str(r.get(args.id_key)) == args.id]
        if not matches:
            print(f"error: {args.file}: no record with {args.id_key} = {args.id!r}", file=sys.stderr)
            return 1
        record = matches[0]
    elif 0 <= args.record < len(records):
        record = records[args.record]
    else:
        print(f"error: {args.file}: --record {args.record} is out of range (0..{len(records) - 1})", file=sys.stderr)
        return 1
    options = {name: getattr(args, name) for name in DeriveOptions.model_fields}
    json.dump(derive(record, **options).to_dict(), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def _add_derive_options(parser: argparse.ArgumentParser) -> None:
    """One flag per derive option, from its one declaration (``--steps-key``, ``--no-agent-qualifiers``)."""
    for name, field in DeriveOptions.model_fields.items():
        flag = name.replace("_", "-")
        if field.annotation is bool:
            parser.add_argument(f"--no-{flag}", dest=name, action="store_false", help=f"turn off: {field.description}")
        elif name == "agents":
            parser.add_argument(f"--{flag}", nargs="*", default=field.default, help=field.description)
        else:
            parser.add_argument(f"--{flag}", default=field.default, help=field.description)


def _check_command(args: argparse.Namespace) -> int:
    from .check import run_check
    from .task import TaskError

    try:
        code, lines = run_check(args.config)
    except TaskError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return code


def _convert_command(args: argparse.Namespace) -> int:
    from .convert import ConvertError, convert_inputs, write_conversion

    try:
        conversion = convert_inputs(args.format, [Path(name) for name in args.inputs], strict=args.strict,
                                    labels=_label_source(args))
    except (ConvertError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    _report_conversion_problems(conversion)
    _report_recognised(conversion)
    if not conversion.records and conversion.skipped:
        print("error: no record could be read; nothing written", file=sys.stderr)
        return 1
    if args.judgments:
        conversion = _with_judgments(conversion, args)
        if conversion is None:
            return 1
    try:
        write_conversion(conversion, Path(args.output), Path(args.gold) if args.gold else None)
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(conversion.records)} record(s) to {args.output}")
    if args.gold:
        print(f"wrote {len(conversion.gold)} gold line(s) to {args.gold}")
    elif conversion.gold:
        print(f"note: {len(conversion.gold)} record(s) have ground truth; pass --gold FILE to keep it "
              f"(it never goes into the records)", file=sys.stderr)
    if conversion.skipped:
        print(f"note: {len(conversion.skipped)} part(s) of the input could not be read and were left out "
              f"(listed above); --strict writes nothing instead", file=sys.stderr)
    return 0


def _with_judgments(conversion, args: argparse.Namespace):
    """The conversion with the shown judgments of ``--judgments`` in its records (None: errors printed)."""
    import dataclasses

    from .judgments import JudgmentError, attach_judgments, our_schemes
    from .task import Task, TaskError

    if not args.config:
        print("error: --judgments needs --config CONFIG (the task config whose schemes the judgments name)",
              file=sys.stderr)
        return None
    try:
        attached = attach_judgments(conversion.records, Path(args.judgments), our_schemes(Task(args.config).config),
                                    args.judgments_key)
    except (JudgmentError, TaskError) as error:
        for line in getattr(error, "problems", [str(error)]):
            print(f"error: {line}", file=sys.stderr)
        return None
    print(f"placed {attached.shown} judgment(s) under {args.judgments_key!r}; {attached.evaluation_only} kept for "
          f"evaluation only (show: false) stay out of the records")
    return dataclasses.replace(conversion, records=attached.records)


def _report_conversion_problems(conversion) -> None:
    """Each skipped record and each warning on its own stderr line, naming file:line and field;
    with labels from a side file, the runs without a label and the labels without a run."""
    for error in conversion.skipped:
        print(f"skipped: {error}", file=sys.stderr)
    for warning in conversion.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for label in conversion.unmatched_labels:
        print(f"warning: {label}: this label names no run", file=sys.stderr)
    if conversion.labelled is not None:
        print(f"note: {conversion.labelled} of {len(conversion.records)} run(s) got a label from --gold-from",
              file=sys.stderr)
    if conversion.unlabelled:
        shown = ", ".join(conversion.unlabelled[:10]) + (f" and {len(conversion.unlabelled) - 10} more"
                                                          if len(conversion.unlabelled) > 10 else "")
        print(f"note: {len(conversion.unlabelled)} run(s) have no label: {shown}", file=sys.stderr)


def _label_source(args: argparse.Namespace):
    """``--gold-from`` and its options, or None."""
    from .convert import LabelSource

    if not args.gold_from:
        return None
    return LabelSource(Path(args.gold_from), args.gold_key, args.gold_step_base)


def _report_recognised(conversion) -> None:
    """``--from auto``: which format each group of files was read as, and why."""
    for name, what, count in conversion.recognised:
        print(f"recognised {count} file(s) as {what}: read with --from {name}")


def _init_command(args: argparse.Namespace) -> int:
    from .convert import ConvertError
    from .init_task import InitError, init_task
    from .tracetools.cli import phoenix_inputs
    from .tracetools.phoenix import PhoenixError

    inputs, format_name = [Path(name) for name in args.inputs], args.format
    if format_name == "phoenix":
        if (Path(args.output) / "config.yaml").exists() and not args.force:
            print(f"error: {Path(args.output) / 'config.yaml'} already exists: choose a new folder, or pass "
                  f"--force to replace it", file=sys.stderr)
            return 1
        try:
            inputs, format_name = phoenix_inputs(args), "openinference"
        except (PhoenixError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    elif not inputs:
        print("error: init needs INPUT files or folders (or --from phoenix --url URL --project NAME)", file=sys.stderr)
        return 1
    try:
        result = init_task(format_name, inputs, Path(args.output),
                           strict=args.strict, force=args.force, labels=_label_source(args),
                           judgments=Path(args.judgments) if args.judgments else None,
                           judgments_key=args.judgments_key, show_answer=args.show_answer)
    except (ConvertError, InitError, OSError) as error:
        if getattr(error, "conversion", None) is not None:
            _report_conversion_problems(error.conversion)
        for line in str(error).splitlines():  # one line per bad judgment, each an error line
            print(f"error: {line}", file=sys.stderr)
        return 1
    _report_conversion_problems(result.conversion)
    _report_recognised(result.conversion)
    print("\n".join(result.lines()))
    return 0


def _export_command(args: argparse.Namespace) -> int:
    from .analysis import ExportError, collect, export_collection
    from .analysis.agreement import left_out_lines
    from .task import Task, TaskError

    if args.as_gold:
        return _export_gold_command(args)
    if not args.out:
        print("error: export needs --out DIR (or --as-gold FILE)", file=sys.stderr)
        return 1
    try:
        collection = collect(Task(args.config))
        report = export_collection(collection, Path(args.out), args.format)
    except (TaskError, ExportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for table in report["tables"]:
        print(f"{table['table']}: {table['rows']} row(s) -> {Path(args.out) / table['file']}")
    print("\n".join(left_out_lines(collection) + [f"report: {Path(args.out) / 'report.json'}"]))
    return 0


def _export_gold_command(args: argparse.Namespace) -> int:
    from .adjudicate import export_gold, write_gold
    from .analysis import GoldError, read_gold
    from .task import TaskError

    try:
        merge = read_gold(Path(args.merge_gold)) if args.merge_gold else None
        gold = export_gold(Path(args.config), merge)
        write_gold(gold.lines, Path(args.as_gold))
    except (TaskError, GoldError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\n".join([f"left out {line}" for line in gold.left_out]
                    + [f"conflict (left out): {line}" for line in gold.conflicts]
                    + [f"wrote {len(gold.lines)} gold line(s) to {args.as_gold}"
                       + (f" ({gold.merged} merged from {args.merge_gold})" if args.merge_gold else "")]))
    return 0


def _adjudicate_command(args: argparse.Namespace) -> int:
    from .adjudicate import AdjudicationError, adjudicate
    from .task import TaskError

    try:
        result = adjudicate(Path(args.config), Path(args.output), args.min_annotators, args.only_disagreements,
                            args.show_names, args.judgments_key)
    except (AdjudicationError, TaskError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\n".join(result.lines()))
    return 0


def _agreement_command(args: argparse.Namespace) -> int:
    from .analysis import GoldError, agreement_frame, collect, read_gold
    from .analysis.agreement import agreement_lines
    from .task import Task, TaskError

    try:
        gold = read_gold(Path(args.gold)) if args.gold else None
        collection = collect(Task(args.config))
    except (TaskError, GoldError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    frame = agreement_frame(collection, gold, args.within, exclude_bulk=args.exclude_bulk)
    if args.judgments:
        return _judge_agreement(args, collection, frame, gold)
    if args.json:
        figures = frame.astype(object).where(frame.notna(), None).to_dict("records")
        json.dump(figures, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print("\n".join(agreement_lines(frame, collection) + _attribution_lines(args, collection, [], gold)))
    return 0


def _scoring_settings(args: argparse.Namespace):
    from .judge.scoring import Settings

    return Settings(within=max(args.within, 1), k=args.k, seed=args.seed, resamples=args.resamples)


def _attribution_scores(args: argparse.Namespace, collection, judgments, gold) -> list:
    """Failure attribution against gold the field's way (judge/scoring.py); [] without gold."""
    from .judge_agreement import attribution_vs_gold

    if gold is None:
        return []
    return attribution_vs_gold(collection, judgments, gold, _scoring_settings(args))


def _attribution_lines(args: argparse.Namespace, collection, judgments, gold) -> list:
    from .judge import scoring

    found = []
    for scheme, groups in _attribution_scores(args, collection, judgments, gold):
        found += scoring.lines(scheme, groups, _scoring_settings(args))
    return found


def _judge_agreement(args: argparse.Namespace, collection, frame, gold) -> int:
    """``agreement --judgments``: the annotators' figures, then each judge's."""
    from .analysis.agreement import agreement_lines
    from .judge_agreement import judge_agreement_frame, judge_agreement_lines
    from .judgments import JudgmentError, check_judgments, our_schemes, read_judgments
    from .task import Task

    task = Task(args.config)
    try:
        judgments = read_judgments(Path(args.judgments))
        problems = check_judgments(judgments, our_schemes(task.config), task.records())
        if problems:
            raise JudgmentError(problems)
    except JudgmentError as error:
        for line in error.problems:
            print(f"error: {line}", file=sys.stderr)
        return 1
    judged = judge_agreement_frame(task, collection, judgments, gold, args.within)
    if args.json:
        from .judge import scoring

        as_records = lambda f: f.astype(object).where(f.notna(), None).to_dict("records")  # noqa: E731
        scores = [row for scheme, groups in _attribution_scores(args, collection, judgments, gold)
                  for row in scoring.rows(scheme, groups)]
        json.dump({"annotators": as_records(frame), "judgments": as_records(judged), "attribution_vs_gold": scores},
                  sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print("\n".join(agreement_lines(frame, collection) + judge_agreement_lines(judged)
                        + _attribution_lines(args, collection, judgments, gold)))
    return 0


def _migrate_config_command(args: argparse.Namespace) -> int:
    from .files import read_text, write_text_whole
    from .migrate import migrate_config_text

    source = Path(args.config)
    migration = migrate_config_text(read_text(source), trace_view=getattr(args, "trace_view", False))
    if args.output is not None:
        write_text_whole(args.output, migration.text)  # the config is whole or untouched, never half-written
    for change in migration.changes:
        print(f"{source}: {change}", file=sys.stderr)
    for offer in migration.offers:
        print(f"{source}: offer: {offer}", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(migration.text)
    else:
        print(f"wrote {args.output} ({len(migration.changes)} change(s))", file=sys.stderr)
    return 0


def _migrate_values_command(args: argparse.Namespace) -> int:
    from .migrate_values import ValueMigration
    from .task import TaskError

    config = Path(args.config) if args.config else Path(args.task_dir) / "config.yaml"
    try:
        migration = ValueMigration(config, rebase=tuple(Path(path) for path in args.rebase) if args.rebase else None)
    except (TaskError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    lines = migration.lines()
    if args.dry_run:
        print("\n".join(lines + [f"dry run: {len(migration.states)} user_state.json file(s) would change"]))
        return 0
    written = migration.write()
    print("\n".join(lines + [f"wrote {path}" for path in written]
                    + [f"{len(written)} user_state.json file(s) changed"]))
    return 0


def _label_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold-from", metavar="FILE_OR_DIR",
                        help="labels kept apart from the runs (AgentRx's ground_truth, TRAIL's annotation files), "
                             "joined to each run's gold")
    parser.add_argument("--gold-key", metavar="FIELD",
                        help="with --gold-from: the label field that names its run (trajectory_id, trace_id); "
                             "default: each label file's name")
    parser.add_argument("--gold-step-base", type=int, choices=(0, 1), metavar="0|1",
                        help="with --gold-from: whether the labels count steps from 0 or from 1 (AgentRx: 1)")


def _judgment_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--judgments", metavar="FILE", help="judgments ({id, scheme, source, value} lines) to put "
                                                            "into the records (those with show: false stay out)")
    parser.add_argument("--judgments-key", default="judgments", metavar="KEY",
                        help="the record field that holds them (default: judgments)")


def _docs_command(args: argparse.Namespace) -> int:
    from . import documentation

    try:
        if args.page:
            print(documentation.page(args.page))
            return 0
        docs = documentation.page("index").parent
    except documentation.DocsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{docs}  (Markdown; `potato-multiagent docs PAGE` prints a page's path)")
    for name in documentation.pages(docs):
        print(f"  {name:32} {documentation.title(docs / (name + '.md'))}")
    return 0


def version_line() -> str:
    """``potato-multiagent 0.1.0 (Potato 2.12.1, Python 3.11.7)``: what a bug report needs first."""
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    try:
        potato = version("potato-annotation")
    except PackageNotFoundError:
        potato = "not installed"
    return f"potato-multiagent {__version__} (Potato {potato}, Python {sys.version.split()[0]})"


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    from .convert import AUTO, FORMATS
    from .tracetools.cli import add_init_options, add_push_parser

    parser = argparse.ArgumentParser(prog="potato-multiagent", description=__doc__)
    parser.add_argument("--version", action="version", version=version_line())
    commands = parser.add_subparsers(dest="command", required=True)

    d = commands.add_parser("derive", help="print the derivation JSON of one record of a JSON/JSONL file")
    d.add_argument("file")
    d.add_argument("--record", type=int, default=0, help="0-based position of the record (default 0)")
    d.add_argument("--id", help="pick the record whose id field equals this instead")
    d.add_argument("--id-key", default="id")
    _add_derive_options(d)
    d.set_defaults(run=_derive_command)

    c = commands.add_parser("check", help="validate our schemes' config keys and every saved value of a task")
    c.add_argument("config")
    c.set_defaults(run=_check_command)

    formats = "\n".join([f"  {name:14} {module.SUMMARY}" for name, module in FORMATS.items()] +
                        [f"  {AUTO:14} each file's format recognised from its shape (refused when unknown)"])
    v = commands.add_parser("convert", help="convert framework traces into records (and gold) for a task",
                            epilog=f"formats:\n{formats}", formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("--from", dest="format", required=True, choices=[*FORMATS, AUTO], metavar="FORMAT",
                   help=f"the format of the inputs; {AUTO}: recognise each file's format (and say which)")
    v.add_argument("inputs", nargs="+", metavar="INPUT", help="files, or folders of .json/.jsonl/.parquet files "
                                                              "(and .log/.txt for --from mast)")
    v.add_argument("-o", "--output", required=True, help="records file to write (JSON Lines)")
    v.add_argument("--gold", help="where to write the ground truth ({id, gold} lines), never into the records")
    v.add_argument("--strict", action="store_true",
                   help="all or nothing: write nothing when any record cannot be read (default: name it "
                        "on stderr and write the rest)")
    _label_options(v)
    _judgment_options(v)
    v.add_argument("--config", help="with --judgments: the task config whose schemes the judgments name")
    v.set_defaults(run=_convert_command)

    i = commands.add_parser("init", help="convert traces and write a task folder (config.yaml with the types "
                                         "that fit the runs) that `potato start` serves",
                            epilog=f"formats:\n{formats}", formatter_class=argparse.RawDescriptionHelpFormatter)
    i.add_argument("--from", dest="format", default=AUTO, choices=[*FORMATS, AUTO, "phoenix"], metavar="FORMAT",
                   help=f"the format of the inputs (default {AUTO}: recognise each file's format, and say which); "
                        f"phoenix: read a running Phoenix's spans (--url, --project) as openinference")
    i.add_argument("inputs", nargs="*", metavar="INPUT", help="files, or folders of .json/.jsonl/.parquet files "
                                                              "(and .log/.txt for --from mast)")
    i.add_argument("-o", "--output", required=True, metavar="DIR", help="the task folder to write")
    i.add_argument("--strict", action="store_true", help="all or nothing: stop when any record cannot be read")
    i.add_argument("--force", action="store_true", help="replace DIR/config.yaml when it exists")
    i.add_argument("--show-answer", action="store_true",
                   help="show each run's reference answer from its gold (Who&When's ground_truth) above the trace, "
                        "marked as the dataset's; off by default")
    _label_options(i)
    _judgment_options(i)
    add_init_options(i)
    i.set_defaults(run=_init_command)

    e = commands.add_parser("export", help="one tidy table per scheme, joined with the derived context")
    e.add_argument("config")
    e.add_argument("--format", choices=["csv", "jsonl", "parquet"], default="csv")
    e.add_argument("--out", help="folder for the tables and report.json")
    e.add_argument("--as-gold", metavar="FILE", help="instead: write the saved values as a gold file "
                                                     "(agreement --gold reads it), e.g. an adjudicator's")
    e.add_argument("--merge-gold", metavar="FILE", help="with --as-gold: gold lines to start from (the unanimous "
                                                        "gold.jsonl adjudicate wrote); saved values win per scheme")
    e.set_defaults(run=_export_command)

    j = commands.add_parser("adjudicate", help="a Potato task of the items where annotators disagree, their "
                                               "answers shown as judgments; unanimous items to gold")
    j.add_argument("config")
    j.add_argument("-o", "--output", required=True, metavar="DIR", help="the adjudication task folder to write")
    j.add_argument("--min-annotators", type=_non_negative, default=2, metavar="N",
                   help="compare an item's scheme only when N or more annotators saved a valid value (default 2)")
    j.add_argument("--only-disagreements", action="store_true",
                   help="carry judgments only for the schemes that differ (agreed ones go to gold.jsonl)")
    j.add_argument("--show-names", action="store_true", help="name the annotators (default: annotator 1, 2, ...)")
    j.add_argument("--judgments-key", default="judgments", metavar="KEY",
                   help="the record field that holds the judgments (default: judgments)")
    j.set_defaults(run=_adjudicate_command)

    a = commands.add_parser("agreement", help="inter-annotator agreement per scheme (and accuracy against gold)")
    a.add_argument("config")
    a.add_argument("--gold", metavar="FILE", help="gold lines ({id, gold}) as convert --gold writes them")
    a.add_argument("--within", type=_non_negative, default=1, metavar="K", help="step tolerance for 'within ±K' (default 1); failure attribution against gold "
                        "reports ±1 to ±K")
    a.add_argument("--json", action="store_true", help="print the figures as JSON")
    a.add_argument("--judgments", metavar="FILE", help="judgments ({id, scheme, source, value} lines): each "
                                                       "source's accuracy vs gold, agreement with each annotator, "
                                                       "and how often annotators accepted it")
    a.add_argument("-k", type=_positive, default=5, help="nDCG@k's cutoff for ranked steps (default 5)")
    a.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    a.add_argument("--resamples", type=_positive, default=1000, help="bootstrap resamples (default 1000)")
    a.add_argument("--exclude-bulk", action="store_true",
                   help="leave out values set in bulk ('Mark all unreviewed handoffs as fine')")
    a.set_defaults(run=_agreement_command)

    m = commands.add_parser("migrate-config", help="rewrite Potato's built-in multi-agent types to ours, "
                                                   "keeping every other line and comment (idempotent)")
    m.add_argument("config")
    m.add_argument("-o", "--output", help="write here (may be the config itself); default: standard output")
    m.add_argument("--trace-view", action="store_true",
                   help="also move agent_trace display fields to multiagent.trace (potato-multiagent docs trace-view)")
    m.set_defaults(run=_migrate_config_command)

    w = commands.add_parser("migrate-values", help="add what identifies each mark to values saved before (by "
                                                   "Potato's built-in types after migrate-config, or without step "
                                                   "identities); with --rebase, move saved steps to a re-converted data file")
    w.add_argument("task_dir", metavar="TASK_DIR", help="the task folder (its config.yaml is read)")
    w.add_argument("--config", help="the config file, when it is not TASK_DIR/config.yaml")
    w.add_argument("--rebase", nargs=2, metavar=("OLD_DATA", "NEW_DATA"),
                   help="move every saved step reference from the steps of OLD_DATA (what the answers were saved "
                        "on) to the same steps of NEW_DATA, by identity (see: potato-multiagent docs step-references)")
    w.add_argument("--dry-run", action="store_true", help="print what would change and write nothing")
    w.set_defaults(run=_migrate_values_command)

    from .judge import add_arguments, describe_methods, judge_command

    g = commands.add_parser("judge", help="an LLM judge of failure attribution (Who&When's methods, structured "
                                          "JSON) or of MAST failure modes (mast) over a task or trace files, into "
                                          "a judgments file",
                            epilog=f"methods:\n{describe_methods()}", formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(g)
    _add_derive_options(g)
    g.set_defaults(run=judge_command)
    add_push_parser(commands)

    o = commands.add_parser("docs", help="where the documentation installed with the package is: every page, "
                                         "or the path of one (e.g. `less $(potato-multiagent docs cli)`)")
    o.add_argument("page", nargs="?", metavar="PAGE", help="a page: cli, data, tutorial, handoff_review, ...")
    o.set_defaults(run=_docs_command)
    return parser


def _path_errors_as_one_line(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Any command: a path it cannot read or write (missing, a folder, binary, no permission) is
    one ``error: PATH: why`` line on standard error and exit 1, never a traceback."""
    from .files import PathError, why_not

    @functools.wraps(run)
    def guarded(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except BrokenPipeError:
            raise
        except PathError as error:
            print(f"error: {error}", file=sys.stderr)
        except OSError as error:  # a read or write that did not go through files.py
            where = error.filename2 or error.filename
            print(f"error: {where}: {why_not(error)}" if where else f"error: {why_not(error)}", file=sys.stderr)
        return 1
    return guarded


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _path_errors_as_one_line(args.run)(args)
    except BrokenPipeError:  # `potato-multiagent derive ... | head` closed the pipe: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
