"""README opens with the two commands, and CI runs exactly the README's test command."""

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]


def readme_commands():
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def test_readme_opens_with_a_run_command_and_a_test_command():
    run, test = readme_commands()
    assert run == "bash scripts/run-example.sh" and test == "bash scripts/test.sh"
    for command in (run, test):
        assert (ROOT / command.split()[1]).is_file()


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in [line.strip() for line in ci.splitlines()]


def test_the_run_command_serves_an_example_that_exists():
    script = (ROOT / "scripts" / "run-example.sh").read_text(encoding="utf-8")
    default = re.search(r'EXAMPLE="\$\{1:-([^}]+)\}"', script).group(1)
    assert (ROOT / "examples" / default / "config.yaml").is_file()
    assert "--host 127.0.0.1" in script


def test_the_readme_links_only_to_addresses_that_open_where_it_is_read():
    """README.md is the package's page on PyPI, where a relative link or image opens nothing: every
    link is absolute (https), and there is no in-page anchor (PyPI gives headings no ids)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)", text) + re.findall(r"^\[[^\]]+\]:\s*(\S+)", text, re.M)
    assert [target for target in targets if not target.startswith("https://")] == []
