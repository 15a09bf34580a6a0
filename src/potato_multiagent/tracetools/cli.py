"""``init --from phoenix`` and ``push phoenix``: the command side of :mod:`.phoenix`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List

SOURCE_FILE = Path("source") / "phoenix-spans.jsonl"
"""Where ``init --from phoenix`` keeps the spans it read, beside the task (so it can be converted again)."""


def add_init_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("--from phoenix (read the spans from a running Phoenix instead of files)")
    group.add_argument("--url", help="the Phoenix server, e.g. http://127.0.0.1:6006")
    group.add_argument("--project", help="the Phoenix project whose traces to read")
    group.add_argument("--since", help="only traces started at or after this ISO time")
    group.add_argument("--limit", type=int, help="at most this many traces (the newest)")
    group.add_argument("--trace-id", dest="trace_ids", action="append", default=[], metavar="ID",
                       help="this trace (repeat for several) instead of the newest ones")


def phoenix_inputs(args: argparse.Namespace) -> List[Path]:
    """Read the project's spans into ``DIR/source/phoenix-spans.jsonl``; the input files ``init`` converts."""
    from ..files import write_text_whole
    from .phoenix import read_project

    if args.inputs:
        raise ValueError("--from phoenix reads from --url and --project; give no INPUT files")
    if not args.url or not args.project:
        raise ValueError("--from phoenix needs --url URL and --project NAME")
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit: expected a number of traces, 1 or more")
    spans = read_project(args.url, args.project, since=args.since, limit=args.limit, trace_ids=args.trace_ids)
    path = Path(args.output) / SOURCE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_whole(path, "".join(json.dumps(span, ensure_ascii=False) + "\n" for span in spans))
    traces = len({span["context"].get("trace_id") for span in spans})
    print(f"read {len(spans)} span(s) of {traces} trace(s) from project {args.project!r} at {args.url} "
          f"into {path}")
    return [path]


def add_push_parser(commands) -> None:
    p = commands.add_parser("push", help="the annotators' labels to a trace tool (Phoenix span and trace "
                                         "annotations, Langfuse scores), on the spans the runs came from")
    p.add_argument("tool", choices=["phoenix", "langfuse"], help="where the labels go")
    p.add_argument("config", help="the task config (init --from phoenix wrote it)")
    p.add_argument("--url", required=True, help="the server: Phoenix's (http://127.0.0.1:6006) or Langfuse's "
                                                "host (https://cloud.langfuse.com; keys from LANGFUSE_PUBLIC_KEY "
                                                "and LANGFUSE_SECRET_KEY)")
    p.add_argument("--gold", metavar="FILE", help="also the settled gold (adjudicate / export --as-gold), as "
                                                  "annotator 'gold'")
    p.add_argument("--judgments", metavar="FILE", help="also a judgments file's judgments (an LLM judge's), "
                                                       "each as its source with annotator_kind LLM")
    p.add_argument("--dry-run", action="store_true", help="print what would be sent, one JSON line each, "
                                                          "and send nothing")
    p.set_defaults(run=push_command)


def push_command(args: argparse.Namespace) -> int:
    from ..analysis import GoldError, read_gold
    from ..judgments import JudgmentError, read_judgments
    from ..task import Task, TaskError
    from .labels import gold_answers, judgment_answers, task_labels
    from .langfuse import langfuse_score
    from .phoenix import phoenix_annotation

    try:
        task = Task(args.config)
        answers = gold_answers(read_gold(Path(args.gold)), args.gold) if args.gold else []
        if args.judgments:
            answers += judgment_answers(read_judgments(Path(args.judgments)))
        found = task_labels(task, answers)
    except (TaskError, GoldError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except JudgmentError as error:
        for line in error.problems:
            print(f"error: {line}", file=sys.stderr)
        return 1
    for line in found.problems:
        print(f"warning: {line}", file=sys.stderr)
    for line in found.left_out:
        print(f"note: {line}", file=sys.stderr)
    if args.dry_run:
        body = phoenix_annotation if args.tool == "phoenix" else langfuse_score
        for label in found.labels:
            print(json.dumps(body(label), ensure_ascii=False, sort_keys=True))
        what = "annotation(s)" if args.tool == "phoenix" else "score(s)"
        print(f"dry run: {len(found.labels)} {what} would be sent to {args.url}; nothing sent")
        return 0
    if not found.labels:
        print("nothing to push: no saved answer goes on a span or a trace")
        return 0
    if args.tool == "langfuse":
        return _push_langfuse(args.url, found.labels, task.task_dir)
    from .phoenix import push_labels

    report = push_labels(args.url, found.labels)
    for line in report.errors:
        print(f"error: {line}", file=sys.stderr)
    spans = sum(1 for label in report.sent if label.span_id)
    print(f"sent {len(report.sent)} annotation(s) to {args.url} ({spans} on spans, "
          f"{len(report.sent) - spans} on traces); {len(report.not_sent)} not sent")
    if report.not_sent:
        print("nothing was changed locally; push again once the problem above is fixed "
              "(annotations already sent are updated, not duplicated)", file=sys.stderr)
        return 1
    return 0


def _push_langfuse(url: str, labels, task_dir: Path) -> int:
    from .langfuse import QUEUE_FILE, push_labels

    report = push_labels(url, labels, task_dir)
    for line in report.errors():
        print(f"error: {line}", file=sys.stderr)
    print(f"sent {report.sent} score(s) to {url}; {report.unchanged} already there unchanged; "
          f"{len(report.not_sent)} not sent")
    if report.not_sent:
        print(f"nothing was changed locally; the scores not sent stay queued in {task_dir / QUEUE_FILE}: "
              f"push again to resume", file=sys.stderr)
        return 1
    return 0
