"""``potato-multiagent init``: from trace files to a task folder that ``potato start`` serves.

It converts the inputs (records to ``DIR/data/runs.jsonl``, ground truth apart in
``DIR/gold.jsonl``, which no page reads), surveys what the runs contain through the derivation
(agents, handoffs, tool calls, contention on shared resources, gold), and writes
``DIR/config.yaml`` with the annotation types that fit, each with the reason it was chosen; the
types left out are named with the reason too. The choice is a pure function of the survey
(:func:`choose`), so it is tested without files.
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import yaml

from .convert import Conversion, LabelSource, convert_inputs, write_conversion
from .trace import derive
from .trace_view.layout import BECAUSE, layout_rule
from .types import TYPES
from .types._base.proposal import Choice, Survey, when

DATA_FILE = "data/runs.jsonl"
GOLD_FILE = "gold.jsonl"
AGENT_FIELDS = ("agent", "sender", "source", "speaker", "name", "role")
"""Where a step names its agent, in the derivation's order (SPEC §3)."""
COUNTED = ("multi_agent", "with_handoffs", "with_tool_calls", "with_timed_calls", "with_contention")
TASK_FIELDS = ("task", "question", "workflow", "problem_statement")
"""Record fields that say what the run was asked to do, shown above the trace when present."""


class InitError(Exception):
    """``init`` cannot build the task: the message says why and names the file or folder."""

    def __init__(self, message: str, conversion: Optional[Conversion] = None):
        super().__init__(message)
        self.conversion = conversion
        """What the conversion skipped, when that is why (for stderr)."""


def survey(records: Sequence[dict], gold: Sequence[dict] = ()) -> Survey:
    """Count, through the derivation, what the runs contain."""
    counts: Counter = Counter()
    speakers: Counter = Counter()
    texts: Counter = Counter()
    layouts: Counter = Counter()
    for record in records:
        derivation = derive(record)
        layouts[layout_rule(derivation)] += 1
        counts["multi_agent"] += len(derivation.agents) >= 2
        counts["with_handoffs"] += bool(derivation.handoffs)
        counts["with_tool_calls"] += bool(derivation.tool_calls)
        counts["with_timed_calls"] += bool(derivation.calls)
        counts["with_contention"] += bool(derivation.contentions)
        for step in record.get("steps") or []:
            if isinstance(step, dict):
                speakers.update(next(([key] for key in AGENT_FIELDS if isinstance(step.get(key), str)), []))
                texts.update(key for key in ("content", "text", "message") if step.get(key) is not None)
    speakers.pop("role", None)  # Potato's display falls back to role on its own ({role, content} steps)
    gold_keys = tuple(sorted({key for line in gold for key in (line.get("gold") or {})}))
    task_key = next((key for key in TASK_FIELDS if records and all(key in record for record in records)), None)
    return Survey(runs=len(records), with_gold=len(gold), gold_keys=gold_keys, task_key=task_key,
                  layouts=tuple((layout, because, runs) for (layout, because), runs in layouts.most_common()),
                  speaker_key=speakers.most_common(1)[0][0] if speakers else "role",
                  text_key=texts.most_common(1)[0][0] if texts else "content",
                  **{key: counts[key] for key in COUNTED})


def choose(found: Survey) -> List[Choice]:
    """The annotation types that fit what the runs contain, and those left out, each with its reason."""
    choices = [Choice("outcome", {
        "annotation_type": "radio", "name": "outcome", "description": "Did the team complete the task correctly?",
        "labels": ["success", "failure"], "label_requirement": {"required": True}, "horizontal": True},
        "every run is first judged a success or a failure; attribution is asked only for failures"
        + (f" (gold for {found.with_gold} run(s) is in {GOLD_FILE}, never shown)" if found.with_gold else ""))]
    choices.append(when(found.multi_agent, "orchestration", {
        "annotation_type": "radio", "name": "orchestration", "description": "How was the team organised?",
        "labels": list(ORCHESTRATIONS), "horizontal": True},   # one line: the form stays short
        "how the team was organised (a pipeline, a manager with workers, a group chat, a debate); the "
        "answer lays out the trace (lanes, tree, board); until answered, " + layout_reason(found),
        "no run has two agents: there is no team to organise"))
    for folder in sorted(TYPES.values(), key=lambda folder: folder.scheme.proposal_order):
        choices.append(folder.scheme.propose(found))
    return choices


ORCHESTRATIONS = ("sequential_pipeline", "hierarchical_manager", "group_chat", "debate", "other")
"""The orchestration radio's answers; the trace view's default ``layout_map`` lays out the first three
(lanes, tree, board) and leaves the others to its ``auto`` rule."""


def dataset_layout(found: Survey) -> str:
    """The trace view's ``layout``: the one the layout rule picks for every run when that is tree or
    board; else ``auto``, which picks per run and checks the pane's width (lanes only at 280 px
    each, a check only the page can make)."""
    picked = {layout for layout, _because, _runs in found.layouts}
    return picked.pop() if len(picked) == 1 and picked <= {"tree", "board"} else "auto"


def layout_reason(found: Survey) -> str:
    """Why the trace is laid out as ``dataset_layout`` says, counted over the runs."""
    counted = "; ".join(f"{layout} for {runs} of {found.runs} run(s) ({BECAUSE[because]})"
                        for layout, because, runs in found.layouts)
    layout = dataset_layout(found)
    if layout != "auto":
        return f"the trace is laid out as {layout}: {counted}"
    return (f"the trace's layout is auto, chosen per run: {counted}; lanes only where each lane gets 280 px "
            f"of the pane, else board")


ANSWER_KEY = "reference_answer"
"""The record field ``--show-answer`` writes each run's reference answer to (the trace view's ``answer_key``)."""
GOLD_ANSWER_KEYS = ("ground_truth", "answer", "expected_answer", "expected_output", "reference_answer")
"""Where a run's gold holds the task's right answer (Who&When: ``ground_truth``), first found wins."""


def _with_answers(conversion: Conversion) -> Tuple[Conversion, int]:
    """Each record with its gold answer under ``ANSWER_KEY`` (a run without one has none: the trace view
    says so); how many had one."""
    from dataclasses import replace

    answers = {}
    for line in conversion.gold:
        gold = line.get("gold") or {}
        found = next((gold[key] for key in GOLD_ANSWER_KEYS if gold.get(key) not in (None, "")), None)
        if found is not None:
            answers[str(line.get("id"))] = found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)
    records = [{**record, ANSWER_KEY: answers[str(record.get("id"))]} if str(record.get("id")) in answers else record
               for record in conversion.records]
    return replace(conversion, records=records), len(answers)


WHO_AND_WHEN_RULE = ("Who&When's rule: the responsible agent is the one whose mistake made the run fail, and the "
                     "decisive step the first step where that mistake is made (not where the failure became "
                     "visible). The agent need not be the one speaking at that step.")


def _with_rule(choice: Choice, read_as: str) -> Choice:
    """The attribution of Who&When runs states the dataset's attribution rule as its help, the line
    under the step picker (``step_help``): the question itself stays one line."""
    if choice.name != "attribution" or choice.scheme is None or "who-and-when" not in read_as.split("+"):
        return choice
    scheme = {**choice.scheme, "step_help": WHO_AND_WHEN_RULE}
    return Choice(choice.name, scheme, choice.reason, choice.offered)


def build_config(task_name: str, found: Survey, choices: Sequence[Choice], secret_key: Optional[str] = None,
                 show_answer: bool = False) -> dict:
    """The Potato config: our plugin, the records, the trace display, the chosen schemes, and a
    random ``secret_key`` (unless one is given): Potato signs the session cookies with it, so a
    restarted server keeps every annotator signed in (without one it makes a new key per start)."""
    fields = []
    if found.task_key:
        fields.append({"key": found.task_key, "type": "text", "label": "Task",
                       "display_options": {"resizable": False}})
    trace = {"key": "steps", "type": "multiagent.trace", "label": "Run", "layout": dataset_layout(found),
             "display_options": {"resizable": False}}   # the view scrolls itself: no frame around it
    if show_answer:
        trace["answer_key"] = ANSWER_KEY   # shown above the steps, labelled as the dataset's
    if any(choice.name == "orchestration" and choice.scheme for choice in choices):
        trace["layout_from"] = "orchestration"
    fields.append(trace)
    return {
        "annotation_task_name": task_name,
        "task_dir": ".",
        "data_files": [DATA_FILE],
        "item_properties": {"id_key": "id", "text_key": found.task_key or "id"},
        "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"],
        "require_password": False,
        "secret_key": secret_key or new_secret_key(),
        "instance_display": {"layout": {"direction": "vertical", "gap": "16px"}, "fields": fields},
        "annotation_schemes": [choice.scheme for choice in choices if choice.scheme is not None],
    }


def new_secret_key() -> str:
    """A session signing key: 32 random bytes as hex, as Potato's own deploy tooling makes them."""
    return secrets.token_hex(32)


def _kept_secret_key(config_path: Path) -> Optional[str]:
    """The ``secret_key`` of the config ``--force`` replaces: a new one would sign everybody out."""
    try:
        old = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    key = old.get("secret_key") if isinstance(old, dict) else None
    return key if isinstance(key, str) and key.strip() else None


@dataclass
class InitResult:
    config_path: Path
    conversion: Conversion
    found: Survey
    choices: List[Choice] = field(default_factory=list)
    answers: Optional[int] = None
    """With ``--show-answer``: how many runs had a reference answer to show."""

    def lines(self) -> List[str]:
        """What was written and chosen, and why, for the person who ran ``init``."""
        folder = self.config_path.parent
        lines = [f"wrote {len(self.conversion.records)} record(s) to {folder / DATA_FILE}"]
        lines += split_survey(self.conversion)
        if self.conversion.gold:
            lines.append(f"wrote {len(self.conversion.gold)} gold line(s) to {folder / GOLD_FILE} "
                         f"(not in the data: annotators never see it)")
        lines += [f"chose {c.name} ({c.scheme['annotation_type']}): {c.reason}" for c in self.choices if c.scheme]
        lines += [f"left out {c.name}: {c.reason}" for c in self.choices if not c.scheme]
        lines.append("trace display: multiagent.trace (steps #N as every widget numbers them, linked both "
                     "ways with the widgets; see: potato-multiagent docs trace-view)")
        if self.answers is not None:
            runs = len(self.conversion.records)
            lines.append(f"--show-answer: the reference answer of {self.answers} of {runs} run(s) is shown above the "
                         f"trace as '{ANSWER_KEY}'" if self.answers else
                         f"--show-answer: no run's gold has a reference answer ({', '.join(GOLD_ANSWER_KEYS)}): "
                         f"nothing shown")
        lines += [f"wrote {self.config_path}", f"next: cd {folder} && potato start config.yaml"]
        return lines


def split_survey(conversion: Conversion) -> List[str]:
    """For text sources (MAST logs): how many runs were split at their system's markers, by layout,
    and which fell back to one step and why; with side-file labels, how many runs got one."""
    lines: List[str] = []
    layouts = Counter(layout for layout in conversion.layouts.values() if layout is not None)
    if layouts:
        by_layout = ", ".join(f"{count} {layout}" for layout, count in sorted(layouts.items()))
        lines.append(f"split {sum(layouts.values())} of {len(conversion.records)} run(s) into steps at their "
                     f"system's own markers ({by_layout})")
    if conversion.fallbacks:
        lines.append(f"{len(conversion.fallbacks)} run(s) fell back to one step holding the whole log:")
        lines += [f"  {record_id}: {why}" for record_id, why in conversion.fallbacks.items()]
    if conversion.labelled is not None:
        lines.append(f"labels from --gold-from: {conversion.labelled} of {len(conversion.records)} run(s) got one"
                     + (f"; {len(conversion.unmatched_labels)} label(s) name no run"
                        if conversion.unmatched_labels else ""))
    return lines


def init_task(format_name: str, inputs: Sequence[Path], folder: Path, strict: bool = False,
              force: bool = False, judgments: Optional[Path] = None,
              judgments_key: str = "judgments", labels: Optional[LabelSource] = None,
              show_answer: bool = False) -> InitResult:
    """Convert, survey, choose and write the task folder (config last, so a failure leaves no config).

    ``judgments``: a judgments file naming the chosen schemes (``attribution``, ``handoffs``, ...);
    its shown judgments go into the records under ``judgments_key`` (see :mod:`.judgments`).
    ``labels``: labels kept in a side file, joined to the runs' gold (``--gold-from``).
    ``show_answer``: each run's reference answer from its gold, shown above the trace (``--show-answer``).
    """
    config_path = folder / "config.yaml"
    if config_path.exists() and not force:
        raise InitError(f"{config_path} already exists: choose a new folder, or pass --force to replace it")
    secret_key = _kept_secret_key(config_path) if config_path.exists() else None
    conversion = convert_inputs(format_name, inputs, strict=strict, labels=labels)
    if not conversion.records:
        raise InitError("no record could be read; nothing written", conversion)
    found = survey(conversion.records, conversion.gold)
    read_as = "+".join(name for name, _, _ in conversion.recognised) or format_name  # auto: what it read
    choices = [_with_rule(choice, read_as) for choice in choose(found)]
    answered = 0
    if show_answer:
        with_answers, answered = _with_answers(conversion)
        conversion = with_answers if answered else conversion
    if judgments is not None:
        choices = _judged_choices(choices, judgments)
        conversion = _with_judgments(conversion, choices, judgments, judgments_key)
    write_conversion(conversion, folder / DATA_FILE, folder / GOLD_FILE if conversion.gold else None)
    task_name = f"{read_as} runs in {folder.resolve().name} ({uuid.uuid4().hex[:8]})"
    config = build_config(task_name, found, choices, secret_key, show_answer=answered > 0)
    _write_whole(config_path, _config_text(config, choices, format_name, read_as, split_survey(conversion)))
    return InitResult(config_path=config_path, conversion=conversion, found=found, choices=choices,
                      answers=answered if show_answer else None)


def _judged_choices(choices: Sequence[Choice], path: Path) -> List[Choice]:
    """The choices with every scheme the judgments judge: a type init left out for what the runs lack
    is added (the judge's answers are there to be seen); a name init writes under no type is refused,
    with the way to add it."""
    from .judgments import JudgmentError, read_judgments

    try:
        judged = {judgment.scheme for judgment in read_judgments(path)}
    except JudgmentError as error:
        raise InitError("\n".join(error.problems) + "\nnothing written") from None
    known = {choice.name for choice in choices if choice.scheme is not None or choice.offered is not None}
    unknown = sorted(judged - known)
    if unknown:
        hand = [choice.name for choice in choices if choice.scheme is None and choice.offered is None]
        raise InitError(
            f"{path}: judgments for {', '.join(repr(name) for name in unknown)}, which init writes no scheme for "
            f"(it writes: {', '.join(sorted(known))}; {', '.join(hand)} only by hand). Run init without "
            f"--judgments, add the scheme to config.yaml, then put the judgments in with `potato-multiagent "
            f"convert ... --judgments FILE --config config.yaml`; nothing written")
    return [Choice(choice.name, choice.offered, f"{choice.reason}; added because {path.name} judges it")
            if choice.scheme is None and choice.name in judged else choice for choice in choices]


def _with_judgments(conversion: Conversion, choices: Sequence[Choice], path: Path, key: str) -> Conversion:
    from dataclasses import replace

    from .judgments import JudgmentError, attach_judgments, our_schemes, read_judgments

    schemes = our_schemes({"annotation_schemes": [c.scheme for c in choices if c.scheme is not None]})
    try:
        attached = attach_judgments(conversion.records, path, schemes, key)
    except JudgmentError as error:
        raise InitError("\n".join(error.problems) + "\nnothing written") from None
    # A judge's answers (``potato-multiagent judge`` writes ``run``) show once the annotator has answered.
    judged = {j.scheme for j in read_judgments(path) if j.show and j.run is not None}
    for scheme in schemes.values():
        if scheme["name"] in judged:
            scheme.setdefault("show_judgments", "after_answer")
    return replace(conversion, records=attached.records)


def _config_text(config: dict, choices: Sequence[Choice], format_name: str, read_as: str,
                 survey_lines: Sequence[str] = ()) -> str:
    header = [f"# Written by `potato-multiagent init --from {format_name}`. Start it with: potato start config.yaml"]
    if read_as != format_name:
        header.append(f"# The inputs were recognised as --from {read_as}.")
    header += ["#"] + [f"# {line}" for line in survey_lines] + (["#"] if survey_lines else [])
    header += ["# Chosen from what the runs contain:"]
    header += [f"#   {c.name}: {c.reason}" for c in choices if c.scheme]
    header += ["# Left out:"] + [f"#   {c.name}: {c.reason}" for c in choices if not c.scheme]
    header += [f"# Ground truth, if any, is in {GOLD_FILE} (outside data/): "
               f"potato-multiagent agreement config.yaml --gold {GOLD_FILE}",
               "# secret_key signs the annotators' session cookies, so a restart keeps them signed in: keep this",
               "# file private (whoever knows the key can sign in as anyone); a new key signs everybody out.", ""]
    return "\n".join(header) + yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def _write_whole(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)
