"""The ``potato-multiagent`` command: thin argument parsing over the library."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional

from .trace import derive


def _derive_command(args: argparse.Namespace) -> int:
    from .task import TaskError, read_records

    try:
        records = read_records(Path(args.file))
    except (OSError, TaskError) as error:
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
    options = {"steps_key": args.steps_key, "agent_key": args.agent_key, "calls_key": args.calls_key,
               "resource_key": args.resource_key, "agents": args.agents,
               "agent_qualifiers": not args.no_agent_qualifiers}
    json.dump(derive(record, **options).to_dict(), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def _check_command(args: argparse.Namespace) -> int:
    from .check import run_check

    code, lines = run_check(args.config)
    print("\n".join(lines))
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="potato-multiagent", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    d = commands.add_parser("derive", help="print the derivation JSON of one record of a JSON/JSONL file")
    d.add_argument("file")
    d.add_argument("--record", type=int, default=0, help="0-based position of the record (default 0)")
    d.add_argument("--id", help="pick the record whose id field equals this instead")
    d.add_argument("--id-key", default="id")
    d.add_argument("--steps-key", default="steps")
    d.add_argument("--agent-key", default="agent")
    d.add_argument("--calls-key", default="calls")
    d.add_argument("--resource-key", default="resource")
    d.add_argument("--agents", nargs="*", default=None, help="static roster listed first")
    d.add_argument("--no-agent-qualifiers", action="store_true",
                   help="keep 'Orchestrator (thought)' as one agent name")
    d.set_defaults(run=_derive_command)

    c = commands.add_parser("check", help="validate our schemes' config keys and every saved value of a task")
    c.add_argument("config")
    c.set_defaults(run=_check_command)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # `potato-multiagent derive ... | head` closed the pipe: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
