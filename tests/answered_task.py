"""A smallest task folder with run-level radio answers saved in Potato's shape, for the tests of
what leaves a task (push phoenix, push langfuse): no server, no browser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping


def radio_task(folder: Path, answers: Mapping[str, str], scheme: str = "outcome", user: str = "ann") -> Path:
    """One run per key of ``answers`` (a trace id; one step with a span id), the config (a radio
    ``scheme``: success/failure) and ``user``'s answer to each; returns the config's path."""
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "runs.jsonl").write_text("".join(
        json.dumps({"id": run, "steps": [{"agent": "A", "span_id": "b7ad6b7169203331", "content": "hi"}]}) + "\n"
        for run in answers))
    (folder / "config.yaml").write_text(
        f"annotation_task_name: push-{folder.name}-{scheme}\ntask_dir: .\ndata_files: [data/runs.jsonl]\n"
        "item_properties: {id_key: id, text_key: id}\noutput_annotation_dir: annotation_output\n"
        f"annotation_schemes:\n- {{annotation_type: radio, name: {scheme}, description: Did it work, "
        "labels: [success, failure]}\n")
    state = folder / "annotation_output" / user / "user_state.json"
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"user_id": user, "instance_id_to_label_to_value": {
        run: [[{"schema": scheme, "name": answer}, answer]] for run, answer in answers.items()}}))
    return folder / "config.yaml"


def saved_state(config: Path, user: str = "ann") -> str:
    return (config.parent / "annotation_output" / user / "user_state.json").read_text()
