"""Byte-for-byte comparison with the real kubectl printers, for a handful of templates."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from svc.cli.printers.errors import TemplateError
from svc.cli.printers.gotemplate import parse_go_template
from svc.cli.printers.jsonpath import parse_jsonpath
from svc.cli.printers.kyaml import to_kyaml

pytestmark = pytest.mark.kubectl

OBJECT: dict[str, Any] = {
    "apiVersion": "example.com/v1",
    "kind": "Thing",
    "metadata": {"labels": {"x": "y"}, "name": "t1"},
    "spec": {
        "f": 1.5, "bigf": 1000000.0, "n": None, "s": "a<b", "multi": "l1\nl2\n",
        "items": [{"name": "a", "v": 1}, {"extra": "e", "name": "b", "v": 2}],
    },
}  # fmt: skip

KUBECTL = shutil.which("kubectl")
KUBECTL_KYAML = Path(__file__).resolve().parents[3] / ".tools" / "bin" / "kubectl"


def kubectl(binary: str, tmp_path: Path, output: str, allow: bool = True) -> tuple[str, str]:
    source = tmp_path / "object.json"
    source.write_text(json.dumps(OBJECT))
    command = [binary, "label", "--local", "-f", str(source), "--overwrite", "x=y", f"-o{output}"]
    command.append(f"--allow-missing-template-keys={str(allow).lower()}")
    done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    return done.stdout, done.stderr


def ours(render: Any) -> tuple[str, str]:
    try:
        return render(), ""
    except TemplateError as error:
        return error.output, f"error: {error}" + ("" if str(error).endswith("\n") else "\n")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
@pytest.mark.parametrize("allow", [True, False])
@pytest.mark.parametrize(
    "template",
    ["{.metadata.name} {.spec.f} {.spec.bigf} {.spec.n}", "{range .spec.items[*]}{.name}={.v}{'\\n'}{end}",
     "{.spec.items[?(@.v > 1)]}", "{.spec.items[*].extra}", "{.spec"],
)  # fmt: skip
def test_jsonpath(tmp_path: Path, template: str, allow: bool) -> None:
    assert KUBECTL is not None
    expected = kubectl(KUBECTL, tmp_path, f"jsonpath={template}", allow)
    assert ours(lambda: parse_jsonpath(template).execute(OBJECT, allow_missing_keys=allow)) == expected


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
@pytest.mark.parametrize("allow", [True, False])
@pytest.mark.parametrize(
    "template",
    ["{{.spec}}", '{{range .spec.items}}{{printf "%-4s|%3d" .name .v}}{{.extra}}\n{{end}}',
     "{{.spec.f}} {{.spec.bigf}} {{.spec.n}} {{.spec.missing}}", "{{if .spec.n}}x{{else}}{{len .spec.items}}{{end}}",
     "{{index .spec.items 3}}", "{{.spec"],
)  # fmt: skip
def test_go_template(tmp_path: Path, template: str, allow: bool) -> None:
    assert KUBECTL is not None
    expected = kubectl(KUBECTL, tmp_path, f"go-template={template}", allow)
    assert ours(lambda: parse_go_template(template).execute(OBJECT, allow_missing_keys=allow)) == expected


@pytest.mark.skipif(not KUBECTL_KYAML.exists(), reason="no kubectl with -o kyaml in .tools/bin")
def test_kyaml(tmp_path: Path) -> None:
    stdout, _ = kubectl(str(KUBECTL_KYAML), tmp_path, "kyaml")
    assert to_kyaml(_sorted(OBJECT)) == stdout


def _sorted(value: Any) -> Any:
    """kubectl prints unstructured objects with sorted keys; to_kyaml keeps the order it is given."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value
