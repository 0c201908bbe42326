"""``designer init``: a starter intent that builds as written, the shipped examples, and what it refuses."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from designer.catalog import catalog
from designer.cli import main
from designer.intent.starter import SWITCH_OSES, Choices, examples
from designer.pipeline import design, validated_intent


def _builds(path: Path) -> None:
    """The intent at ``path`` validates and designs with no error-level finding."""
    built = design(validated_intent(path), hosts=False)
    assert [finding for finding in built.findings if finding.severity == "error"] == []


def test_without_a_terminal_or_flags_init_writes_the_default_starter_and_it_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["init"]) == 0
    text = (tmp_path / "cluster.yaml").read_text()
    assert "servers: 128" in text and "server: dgx-h100" in text and "targets: [frr]" in text
    assert "designer build cluster.yaml" in capsys.readouterr().out
    intent = validated_intent(tmp_path / "cluster.yaml")
    assert (intent.gpus, intent.targets) == (1024, ("frr",)) or (intent.gpus, list(intent.targets)) == (1024, ["frr"])
    _builds(tmp_path / "cluster.yaml")


@pytest.mark.parametrize("server", sorted(catalog().servers))
def test_the_starter_builds_for_every_catalog_server(tmp_path: Path, server: str) -> None:
    path = tmp_path / "intent.yaml"
    assert main(["init", str(path), "--server", server, "--switch", "nvidia-sn5600", "--gpus", "512"]) == 0
    _builds(path)


@pytest.mark.parametrize("target", SWITCH_OSES)
def test_the_starter_builds_for_every_target_with_what_it_needs(tmp_path: Path, target: str) -> None:
    path = tmp_path / "intent.yaml"
    assert main(["init", str(path), "--target", target, "--gpus", "256"]) == 0
    intent = validated_intent(path)
    assert target in intent.targets
    _builds(path)


def test_on_a_terminal_init_asks_and_enter_takes_each_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter(["2048", "dgx-b300", "", "nvue", "two-planes"])
    asked: list[str] = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or next(answers))
    assert main(["init"]) == 0
    assert [prompt.split(" (")[0].split(" [")[0] for prompt in asked] == [
        "GPUs",
        "server model",
        "switch model",
        "network OS",
        "design name",
    ]
    intent = validated_intent(tmp_path / "cluster.yaml")
    assert (intent.name, intent.gpus, intent.planes, list(intent.targets)) == ("two-planes", 2048, 2, ["nvue"])


@pytest.mark.parametrize("name", sorted(examples()))
def test_every_shipped_example_is_written_as_shipped_and_builds(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.yaml"
    assert main(["init", "--example", name, str(path)]) == 0
    shipped = Path(__file__).parents[1] / "designer" / "examples" / f"{name}.yaml"
    assert path.read_bytes() == shipped.read_bytes()
    assert validated_intent(path).name == name
    _builds(path)


def test_list_names_every_example_with_its_header(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--list"]) == 0
    out = capsys.readouterr().out
    assert {line.split()[0] for line in out.splitlines()} == set(examples()) >= {"dgx-h100", "dgx-b300-two-planes"}


def test_init_never_overwrites_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text("mine\n")
    assert main(["init", str(path), "--gpus", "1024"]) == 2
    assert path.read_text() == "mine\n"
    assert "exists; designer init never overwrites a file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--server", "dgx-x"],
            "server: unknown server model 'dgx-x'; use one of amd-mi300x, amd-mi355x, dgx-b200, dgx-b300",
        ),
        (["--switch", "sn9999"], "switch: unknown switch model 'sn9999'; use one of"),
        (["--target", "ios"], f"target: unknown network OS 'ios'; use one of {', '.join(SWITCH_OSES)}"),
        (["--gpus", "1001"], "gpus: 1001 GPUs do not fill whole dgx-h100 servers of 8 GPUs"),
        (["--name", "x\nfabric: {}"], "name: 'x\\nfabric: {}' is not a safe file name"),
        (["--name", "../../etc/x"], "name: '../../etc/x' is not a safe file name"),
        (
            ["--server", "gb300-nvl72"],
            "server: gb300-nvl72 is a rack-scale system, not a server model: designer init --example gb300-nvl72",
        ),
        (
            ["--example", "nope"],
            "example: unknown example 'nope'; use one of amd-mi355x, dgx-b300-two-planes, dgx-h100, gb300-nvl72",
        ),
    ],
)
def test_bad_choices_exit_2_with_what_would_be_valid_and_write_nothing(
    tmp_path: Path, argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "x.yaml"), *argv]) == 2
    assert expected in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_starter_into_a_folder_that_does_not_exist_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "nodir" / "sub" / "x.yaml"), "--gpus", "8"]) == 2
    assert f"output: {tmp_path / 'nodir' / 'sub'} is not a folder; designer init writes into an existing one" in (
        capsys.readouterr().err
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("answers", [["many"], ["9" * 5000], []])
def test_a_gpu_count_that_is_no_number_or_the_end_of_input_at_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answers: list[str]
) -> None:
    """A non-numeric answer is refused as not a number (never reported as -1 GPUs); the end of input (Ctrl-D)
    takes the defaults of the questions left."""
    given = iter(answers)

    def answer(_: str) -> str:
        try:
            return next(given)
        except StopIteration:
            raise EOFError from None

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", answer)
    code = main(["init"])
    err = capsys.readouterr().err
    if answers:
        assert code == 2 and "gpus: not a number of GPUs; use a whole number, e.g. 1024" in err and "-1" not in err
    else:
        assert code == 0 and validated_intent(tmp_path / "cluster.yaml").gpus == 1024


def test_choices_default_to_the_documented_starter() -> None:
    assert Choices() == Choices(gpus=1024, server="dgx-h100", switch="generic-64x400g", target="frr", name="cluster")
