"""What the GitHub Actions runner does with a step, close enough to test against.

Two parts, both modelled on actions/runner (src/Runner.Worker/ActionCommandManager.cs,
ActionCommand.cs) and the composite-action documentation:

- :func:`workflow_commands`: which output lines the runner would act on as
  workflow commands. Lines split on CR, LF or CRLF (.NET ``ReadLine``); a
  ``::name ...::data`` command counts after leading whitespace is trimmed;
  a legacy ``##[name ...]data`` command counts anywhere in a line; after
  ``::stop-commands::TOKEN`` nothing counts until ``::TOKEN::``.
  It is deliberately stricter than the runner: any ``##[...]`` counts, any
  ``::name::`` counts, registered or not.
- :func:`run_composite`: runs a composite action's ``run:`` steps with bash
  as the runner would (``bash --noprofile --norc -eo pipefail``), with the
  runner's environment (``GITHUB_ACTIONS``, ``GITHUB_OUTPUT``,
  ``GITHUB_STEP_SUMMARY``, ``GITHUB_WORKSPACE``, ``GITHUB_ACTION_PATH``,
  ``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``, ``RUNNER_TEMP``) and the
  step's ``env:`` with its ``${{ }}`` expressions evaluated. ``uses:`` steps
  cannot run here (nothing outside can be fetched) and are skipped; their
  outputs can be supplied.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_LINES = re.compile(r"\r\n|\r|\n")
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_DOTTED = re.compile(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*")


@dataclass(frozen=True)
class Command:
    """One workflow command the runner would process: ``name`` and the raw line."""

    name: str
    line: str


def _v2(line: str) -> str | None:
    text = line.lstrip()
    if not text.startswith("::"):
        return None
    end = text.find("::", 2)
    if end < 0:
        return None
    info = text[2:end]
    return info.split(" ", 1)[0] or None


def _v1(line: str) -> str | None:
    start = line.find("##[")
    if start < 0:
        return None
    end = line.find("]", start)
    if end < 0:
        return None
    return line[start + 3:end].split(" ", 1)[0] or None


def workflow_commands(output: str) -> list[Command]:
    """The workflow commands in ``output`` that the runner would process,
    including ``stop-commands`` and the matching resume command."""
    commands: list[Command] = []
    stop_token: str | None = None
    for line in _LINES.split(output):
        name = _v2(line) or _v1(line)
        if name is None:
            continue
        if stop_token is not None:
            if name == stop_token:
                commands.append(Command(name, line))
                stop_token = None
            continue
        commands.append(Command(name, line))
        if name == "stop-commands":
            stop_token = line.lstrip()[len("::stop-commands::"):]
    return commands


# --------------------------------------------------------------------------- composite actions

@dataclass
class StepRun:
    """One executed ``run:`` step: its id, exit status, log (stdout and stderr
    interleaved, as the runner shows them) and the outputs it set."""

    id: str
    status: int
    log: str
    outputs: dict[str, str]


@dataclass
class ActionRun:
    """An executed composite action: its steps, its outputs, and the step
    summary Markdown written by all steps."""

    steps: list[StepRun] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""

    @property
    def status(self) -> int:
        """Exit status of the first failing step (0 when all passed)."""
        return next((s.status for s in self.steps if s.status), 0)

    def step(self, step_id: str) -> StepRun:
        return next(s for s in self.steps if s.id == step_id)


def _lookup(context: dict[str, Any], expr: str) -> str:
    if not _DOTTED.fullmatch(expr):
        raise ValueError(f"unsupported expression {expr!r}: keep action.yml expressions to context lookups")
    node: Any = context
    for part in expr.split("."):
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return ""
    if isinstance(node, bool):
        return "true" if node else "false"
    return node if isinstance(node, str) else json.dumps(node)


def evaluate(value: str, context: dict[str, Any]) -> str:
    """Substitute every ``${{ context.path }}`` in ``value`` (missing -> empty, as the runner does)."""
    return _EXPR.sub(lambda m: _lookup(context, m.group(1)), str(value))


def parse_output_file(text: str) -> dict[str, str]:
    """``GITHUB_OUTPUT`` syntax: ``name=value`` lines and ``name<<DELIM`` blocks."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            while lines[i] != delim:
                body.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(body)
        else:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def run_composite(action_dir: Path, workspace: Path, *, runner_temp: Path, inputs: dict[str, str],
                  event_name: str, event: dict[str, Any], uses_outputs: dict[str, dict[str, str]] | None = None,
                  skip_steps: dict[str, dict[str, str]] | None = None, base_env: dict[str, str] | None = None
                  ) -> ActionRun:
    """Run ``action_dir/action.yml``'s steps in ``workspace``.

    ``inputs`` override the declared defaults. ``uses_outputs`` maps the id
    of a skipped ``uses:`` step to the outputs it would have set.
    ``skip_steps`` maps the id of a ``run:`` step to outputs to use instead
    of running it again (a step already run once for this ``runner_temp``).
    Stops at the first failing step, as the runner does.
    """
    action = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs not declared in action.yml: {unknown}"
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    values.update(inputs)
    event_path = runner_temp / "event.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    context: dict[str, Any] = {
        "inputs": values,
        "github": {"event_name": event_name, "event": event, "action_path": str(action_dir),
                   "workspace": str(workspace)},
        "runner": {"temp": str(runner_temp)},
        "steps": {},
    }
    summary_parts = []
    result = ActionRun()
    env_base = dict(base_env if base_env is not None else os.environ)
    env_base.update({
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(action_dir),
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "RUNNER_TEMP": str(runner_temp),
    })
    for n, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"__{n}")
        if "uses" in step:
            context["steps"][step_id] = {"outputs": dict((uses_outputs or {}).get(step_id, {}))}
            continue
        assert "if" not in step, "run: steps are expected to run unconditionally"
        if skip_steps and step_id in skip_steps:
            context["steps"][step_id] = {"outputs": dict(skip_steps[step_id])}
            continue
        assert step.get("shell") == "bash", "every run: step names its shell"
        for key, value in step.get("env", {}).items():
            assert "${{" not in str(value) or _EXPR.fullmatch(str(value).strip()), (key, value)
        assert "${{" not in step["run"], f"step {step_id} expands an expression inside its script"
        files = {name: runner_temp / f"{step_id}.{name}" for name in ("output", "env", "summary")}
        for f in files.values():
            f.write_text("", encoding="utf-8")
        script = runner_temp / f"{step_id}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = dict(env_base)
        env.update({"GITHUB_OUTPUT": str(files["output"]), "GITHUB_ENV": str(files["env"]),
                    "GITHUB_STEP_SUMMARY": str(files["summary"])})
        env.update({k: evaluate(v, context) for k, v in step.get("env", {}).items()})
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              stdin=subprocess.DEVNULL)
        outputs = parse_output_file(files["output"].read_text(encoding="utf-8"))
        context["steps"][step_id] = {"outputs": outputs}
        summary_parts.append(files["summary"].read_text(encoding="utf-8"))
        result.steps.append(StepRun(step_id, proc.returncode, proc.stdout, outputs))
        if proc.returncode:
            break
    result.summary = "".join(summary_parts)
    # The runner evaluates the action's outputs even when a step failed.
    result.outputs = {name: evaluate(spec["value"], context) for name, spec in action.get("outputs", {}).items()}
    return result
