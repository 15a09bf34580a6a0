"""Turn any judge's answers into a judgments file `potato-multiagent` reads.

    python examples/judgments/make_judgments.py RECORDS.jsonl --scheme attribution --source NAME > judgments.jsonl

A judge is any function from a record to the scheme's stored value. Two are here: `last_speaker`
(a baseline that blames the last agent to speak, at its last step) and `llm_judge`, which builds
the prompt, sends it through `ask` (plug in your model client there) and turns the model's reply
(`{"agent": ..., "step": N}`, N as the annotators see it, #N = index + 1) into the stored shape
(`decisive_step` is 0-based). Each line is checked before it is written by the same
`validate_value` that checks the annotators' saved values, so a judge naming an agent or a step
the trace does not have is named on stderr and left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Optional

from potato_multiagent import derive, validate_value
from potato_multiagent.task import read_records

SCHEME = {"annotation_type": "multiagent.failure_attribution", "name": "attribution",
          "description": "Which agent caused the failure, and at which step?"}


def last_speaker(record: dict) -> dict:
    """Baseline: the last agent to speak, at its last step."""
    steps = derive(record).steps
    last = next((step for step in reversed(steps) if step.agent is not None), None)
    return {"responsible_agent": last.agent if last else None, "decisive_step": last.index if last else None,
            "reason": ""}


def prompt(record: dict) -> str:
    """The run as a judge reads it: the task, then `#N agent: text` per step."""
    derivation = derive(record)
    lines = [f"Task: {record.get('task', '')}", "", "Run:"]
    lines += [f"#{step.index + 1} {step.agent or '?'}: {step.text}" for step in derivation.steps]
    lines += ["", f"Agents: {', '.join(derivation.agents)}",
              'The run failed. Which agent caused the failure, and at which step? Answer with JSON only: '
              '{"agent": "<one of the agents>", "step": <N>, "reason": "<one sentence>"}']
    return "\n".join(lines)


def ask(text: str) -> str:
    """Send `text` to your model and return its reply (replace this with your client's call)."""
    raise SystemExit("plug your model client into ask() in make_judgments.py, or use --judge last-speaker")


def llm_judge(record: dict, reply: Callable[[str], str] = ask) -> dict:
    answer = json.loads(reply(prompt(record)))
    step = answer.get("step")
    return {"responsible_agent": answer.get("agent"), "decisive_step": step - 1 if isinstance(step, int) else None,
            "reason": str(answer.get("reason", ""))}


JUDGES = {"last-speaker": last_speaker, "llm": llm_judge}


def judgment_lines(records: list, judge: Callable[[dict], dict], source: str, scheme: str = "attribution",
                   show: bool = True, problems: Optional[list] = None) -> list:
    lines = []
    for record in records:
        value = judge(record)
        found = validate_value(SCHEME["annotation_type"], {**SCHEME, "name": scheme}, value, record)
        if found:
            if problems is not None:
                problems.append(f"{record['id']}: {'; '.join(found)}")
            continue
        line = {"id": record["id"], "scheme": scheme, "source": source, "value": value}
        lines.append({**line, "show": False} if not show else line)
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+")
    parser.add_argument("--scheme", default="attribution")
    parser.add_argument("--source", default="last speaker")
    parser.add_argument("--judge", choices=list(JUDGES), default="last-speaker")
    parser.add_argument("--hidden", action="store_true", help="for evaluation only (show: false)")
    args = parser.parse_args(argv)
    records = [record for path in args.records for record in read_records(Path(path))]
    problems: list = []
    for line in judgment_lines(records, JUDGES[args.judge], args.source, args.scheme, not args.hidden, problems):
        print(json.dumps(line, ensure_ascii=False))
    for problem in problems:
        print(f"left out: {problem}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
