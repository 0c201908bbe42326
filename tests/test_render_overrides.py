"""User template overrides: searched first, file by file; sandboxed; a misspelt variable names template and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from designer.cli import main
from designer.pipeline import build
from designer.render import Renderer, TemplateError
from tests.conftest import ROOT

INTENT = ROOT / "tests" / "intents" / "small-2tier.yaml"


@pytest.fixture
def intent_with_templates(tmp_path: Path) -> Path:
    """A copy of the small 2-tier intent with an empty ``templates/frr`` folder beside it."""
    (tmp_path / "templates" / "frr").mkdir(parents=True)
    return Path(shutil.copy(INTENT, tmp_path / "intent.yaml"))


def test_a_user_template_replaces_one_file_and_the_rest_stay_shipped(intent_with_templates: Path) -> None:
    folder = intent_with_templates.parent
    (folder / "templates" / "frr" / "bfd.j2").write_text(
        "bfd\n profile fabric\n  detect-multiplier {{ device.bgp.bfd.multiplier * 2 }}\n exit\nexit\n!\n")
    assert main(["build", str(intent_with_templates), "-o", str(folder / "out")]) == 0
    text = (folder / "out" / "configs" / "frr" / "p0-spine0.conf").read_text()
    assert "  detect-multiplier 6\n" in text and "receive-interval" not in text
    assert "router bgp " in text and "interface swp1\n" in text
    eos = (folder / "out" / "configs" / "eos" / "p0-spine0.cfg").read_text()
    assert "router bfd\n   interval 300 min-rx 300 multiplier 3 default\n" in eos


def test_templates_option_wins_over_the_folder_beside_the_intent(intent_with_templates: Path, tmp_path: Path) -> None:
    (intent_with_templates.parent / "templates" / "frr" / "bfd.j2").write_text("! beside\n")
    chosen = tmp_path / "chosen"
    (chosen / "frr").mkdir(parents=True)
    (chosen / "frr" / "bfd.j2").write_text("! chosen\n")
    out = tmp_path / "out"
    assert main(["build", str(intent_with_templates), "-o", str(out), "--templates", str(chosen)]) == 0
    text = (out / "configs" / "frr" / "p0-spine0.conf").read_text()
    assert "! chosen\n" in text and "! beside" not in text


def test_a_misspelt_variable_names_the_template_and_line(intent_with_templates: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder = intent_with_templates.parent
    template = folder / "templates" / "frr" / "bfd.j2"
    template.write_text("bfd\n profile fabric\n  detect-multiplier {{ device.bgp.bfd.multiplyer }}\n")
    assert main(["build", str(intent_with_templates), "-o", str(folder / "out")]) == 2
    error = capsys.readouterr().err
    assert f"{template}:3:" in error and "multiplyer" in error
    assert not (folder / "out").exists()


def test_a_template_syntax_error_names_the_template_and_line(tmp_path: Path) -> None:
    (tmp_path / "frr").mkdir()
    (tmp_path / "frr" / "frr.conf.j2").write_text("hostname {{ device.hostname }}\n{% if device.bgp %}\nno end\n")
    with pytest.raises(TemplateError) as caught:
        Renderer(tmp_path).template("frr")
    assert caught.value.where == f"{tmp_path / 'frr' / 'frr.conf.j2'}:3"
    assert "endif" in str(caught.value)


def test_user_templates_run_in_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "frr").mkdir()
    (tmp_path / "frr" / "frr.conf.j2").write_text("{{ device.__class__.__init__.__globals__ }}\n")
    design = build(INTENT)
    with pytest.raises(TemplateError) as caught:
        Renderer(tmp_path).render("frr", design.configs[0])
    assert "SecurityError" in str(caught.value) and "frr.conf.j2:1" in caught.value.where


def test_shipped_templates_are_strict_too() -> None:
    renderer = Renderer()
    template = renderer.environment.from_string("{{ device.hostnme }}")
    with pytest.raises(Exception, match="hostnme"):
        template.render(device=build(INTENT).configs[0])


def test_missing_shipped_templates_are_a_missing_prerequisite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("designer.render.SHIPPED_TEMPLATES", tmp_path / "gone")
    code = main(["build", str(ROOT / "intents" / "cluster.yaml"), "-o", str(tmp_path / "out")])
    assert code == 2
    assert "pip install -e ." in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
