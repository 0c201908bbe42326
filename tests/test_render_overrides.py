"""User template overrides: searched first, file by file; sandboxed; a misspelt variable names template and line."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from designer.cli import main
from designer.pipeline import build
from designer.render import Renderer, TemplateError
from designer.render import environment as render_module
from tests.conftest import ROOT
from tests.test_intent_errors import run_cli

INTENT = ROOT / "tests" / "intents" / "small-2tier.yaml"


@pytest.fixture
def intent_with_templates(tmp_path: Path) -> Path:
    """A copy of the small 2-tier intent with an empty ``templates/frr`` folder beside it."""
    (tmp_path / "templates" / "frr").mkdir(parents=True)
    return Path(shutil.copy(INTENT, tmp_path / "intent.yaml"))


def test_a_user_template_replaces_one_file_and_the_rest_stay_shipped(intent_with_templates: Path) -> None:
    folder = intent_with_templates.parent
    (folder / "templates" / "frr" / "bfd.j2").write_text(
        "bfd\n profile fabric\n  detect-multiplier {{ device.bgp.bfd.multiplier * 2 }}\n exit\nexit\n!\n"
    )
    assert main(["build", str(intent_with_templates), "-o", str(folder / "out")]) == 0
    text = (folder / "out" / "configs" / "frr" / "p0-spine0.conf").read_text()
    assert "  detect-multiplier 6\n" in text and "receive-interval" not in text
    assert "router bgp " in text and "interface swp1\n" in text
    eos = (folder / "out" / "configs" / "eos" / "p0-spine0.cfg").read_text()
    assert "router bfd\n   interval 300 min-rx 300 multiplier 3 default\n" in eos


def test_a_user_policy_template_may_read_the_device_and_is_rendered_for_each_switch(tmp_path: Path) -> None:
    """The shipped route policy is rendered once per distinct policy and reused (it reads ``policy`` alone); a user's
    may read anything, so each switch gets its own rendering."""
    (tmp_path / "frr").mkdir()
    (tmp_path / "frr" / "policy.j2").write_text("! policy of {{ device.hostname }}\n")
    design = build(INTENT)
    renderer = Renderer(tmp_path)
    texts = [renderer.render("frr", device) for device in design.configs]
    assert all(f"! policy of {device.hostname}\n" in text for device, text in zip(design.configs, texts, strict=True))
    assert not renderer.shared and not renderer.blocks


def test_templates_option_wins_over_the_folder_beside_the_intent(intent_with_templates: Path, tmp_path: Path) -> None:
    (intent_with_templates.parent / "templates" / "frr" / "bfd.j2").write_text("! beside\n")
    chosen = tmp_path / "chosen"
    (chosen / "frr").mkdir(parents=True)
    (chosen / "frr" / "bfd.j2").write_text("! chosen\n")
    out = tmp_path / "out"
    assert main(["build", str(intent_with_templates), "-o", str(out), "--templates", str(chosen)]) == 0
    text = (out / "configs" / "frr" / "p0-spine0.conf").read_text()
    assert "! chosen\n" in text and "! beside" not in text


def test_a_misspelt_variable_names_the_template_and_line(
    intent_with_templates: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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


def test_missing_shipped_templates_are_a_missing_prerequisite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("designer.render.environment.SHIPPED_TEMPLATES", tmp_path / "gone")
    code = main(["build", str(INTENT), "-o", str(tmp_path / "out")])
    assert code == 2
    assert "pip install -e ." in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ---- hostile override folders ---------------------------------------------------------------------------------


def _build(intent: Path, out: Path, *extra: str) -> tuple[int, str]:
    code, _, err = run_cli("build", str(intent), "-o", str(out), *extra)
    return code, err


def test_a_linked_template_is_refused_and_nothing_leaks(intent_with_templates: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-VALUE\n")
    link = intent_with_templates.parent / "templates" / "frr" / "bgp.j2"
    link.symlink_to(secret)  # a templates/ folder beside the intent is picked up as is
    code, err = _build(intent_with_templates, tmp_path / "out")
    assert code == 2 and f"{link}: is a symbolic link; template folders may hold only regular files" in err
    assert "SECRET-VALUE" not in err and not (tmp_path / "out").exists()
    link.unlink()
    (intent_with_templates.parent / "templates" / "frr").rename(tmp_path / "real-frr")
    (intent_with_templates.parent / "templates" / "frr").symlink_to(tmp_path / "real-frr")
    (tmp_path / "real-frr" / "bgp.j2").write_text("! from a linked folder\n")
    code, err = _build(intent_with_templates, tmp_path / "out")
    assert code == 2 and "frr: is a symbolic link" in err


def test_a_linked_templates_folder_beside_the_intent_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere" / "frr").mkdir(parents=True)
    (tmp_path / "elsewhere" / "frr" / "bfd.j2").write_text("! elsewhere\n")
    intent = Path(shutil.copy(INTENT, tmp_path / "intent.yaml"))
    (tmp_path / "templates").symlink_to(tmp_path / "elsewhere")
    code, err = _build(intent, tmp_path / "out")
    assert code == 2 and f"{tmp_path / 'templates'}: is a symbolic link" in err and "--templates" in err
    assert _build(intent, tmp_path / "out", "--templates", str(tmp_path / "elsewhere"))[0] == 0


def test_special_files_and_non_utf8_templates_are_refused(tmp_path: Path) -> None:
    (tmp_path / "frr").mkdir()
    os.mkfifo(tmp_path / "frr" / "bgp.j2")  # reading it would block the build forever
    code, err = _build(INTENT, tmp_path / "out", "--templates", str(tmp_path))
    assert code == 2 and f"{tmp_path / 'frr' / 'bgp.j2'}: is a special file" in err
    (tmp_path / "frr" / "bgp.j2").unlink()
    (tmp_path / "frr" / "bgp.j2").write_bytes(b"! fine\n! also fine\n! caf\xe9\n")
    code, err = _build(INTENT, tmp_path / "out", "--templates", str(tmp_path))
    assert code == 2 and f"{tmp_path / 'frr' / 'bgp.j2'}:3: not UTF-8 text (byte 0xe9)" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_a_templates_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    code, err = _build(INTENT, tmp_path / "out", "--templates", str(tmp_path / "nonexistent"))
    assert code == 2 and f"{tmp_path / 'nonexistent'}: --templates names no folder" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}\n", "RecursionError"),
        ("router-id {{ 1 // 0 }}\n", "ZeroDivisionError"),
        ("{% if device.hostname %}{{ device.hostname | no_such_filter }}{% endif %}\n", "No filter named"),
        ("{{ device.hostname | no_such_filter }}\n", "No filter named 'no_such_filter'"),
        ("{{ 'x' * 300000000 }}\n", "SecurityError: '*' would make 300,000,000 items"),
        ("{{ [0] * 2000000 }}\n", "would make 2,000,000 items"),
        ("{{ 10 ** 100000 }}\n", "would make a 400,000-bit number"),
        (
            "{% set ns = namespace(s='x' * 1000) %}{% for i in range(20) %}{% set ns.s = ns.s + ns.s %}{% endfor %}\n",
            "SecurityError: '+' would make 2,048,000 items",
        ),
        (
            "{% for a in range(100000) %}{% for b in range(100000) %}x{% endfor %}{% endfor %}\n",
            "larger than 16,777,216 characters or 4,194,304 pieces",
        ),
        ("{{ ('x '|center(2000000))|wordwrap(3)|length }}\n", "'center' would make 2,000,000 items"),
        ("{% set a = 'x'|center(900000000) %}{{ a|length }}\n", "'center' would make 900,000,000 items"),
        ("{{ 'x'.ljust(1500000000) }}\n", "'str.ljust' would make 1,500,000,000 items"),
        ("{{ 'x'.rjust(2000000) }}\n", "'str.rjust' would make 2,000,000 items"),
        ("{{ '{:>2000000}'.format(1) }}\n", "'str.format' would make 2,000,000 items"),
        ("{{ '%2000000s' % 'x' }}\n", "'%' would make 2,000,000 items"),
        ("{{ '%*s' % (5, 'x') }}\n", "'%' would make a width given by its arguments"),
        ("{{ ('x' * 1000)|replace('x', 'y' * 2000) }}\n", "'replace' would make 2,000,000 items"),
        ("{{ 'ab'.replace('', 'z' * 600000) }}\n", "'str.replace' would make 1,800,002 items"),
        ("{{ ('x\\n' * 400000)|indent(width=2) }}\n", "'indent' would make 1,600,002 items"),
        ("{{ [('x' * 600000), ('y' * 600000)]|join }}\n", "'join' would make 1,200,000 items"),
        ("{{ '%2000000d'|format(1) }}\n", "'format' would make 2,000,000 items"),
        ("{% set l = [1] %}{{ l.append(2) }}\n", "SecurityError"),
    ],
)
def test_a_failing_or_runaway_template_is_exit_2_naming_template_and_line(body: str, says: str, tmp_path: Path) -> None:
    (tmp_path / "frr").mkdir()
    template = tmp_path / "frr" / "bgp.j2"
    template.write_text("! first line\n" + body)
    start = time.monotonic()
    code, err = _build(INTENT, tmp_path / "out", "--templates", str(tmp_path))
    assert time.monotonic() - start < 60
    assert code == 2 and says in err and "Traceback" not in err, err
    assert f"{template}:2" in err.splitlines()[0]
    assert not (tmp_path / "out").exists()


def test_a_template_that_runs_too_long_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_module, "RENDER_SECONDS", 1.0)
    (tmp_path / "frr").mkdir()
    template = tmp_path / "frr" / "bgp.j2"
    template.write_text("! first\n{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\n")
    start = time.monotonic()
    code, err = _build(INTENT, tmp_path / "out", "--templates", str(tmp_path))
    assert time.monotonic() - start < 30
    assert code == 2 and "RenderTimeout: the template ran longer than 1 s" in err
    assert f"{template}:2" in err.splitlines()[0]
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_limits_leave_ordinary_arithmetic_alone(tmp_path: Path) -> None:
    (tmp_path / "frr").mkdir()
    (tmp_path / "frr" / "bfd.j2").write_text(
        "! {{ '-' * 40 }} {{ 2 ** 64 }} {{ [1, 2] + [3] }} {{ 1.5 * 2 }} {{ 'ab'|center(6) }} {{ '%5s' % 'x' }}"
        " {{ '{:>4}'.format(7) }} {{ 'a-b'.replace('-', '_') }} {{ ['a', 'b']|join(',') }} {{ 7 % 3 }}"
        " {{ '50%% of 2000000 %s' % 'x' }} {{ 'at 12:3000000 {}'.format(1) }}\n"
    )
    assert _build(INTENT, tmp_path / "out", "--templates", str(tmp_path))[0] == 0
    text = (tmp_path / "out" / "configs" / "frr" / "p0-spine0.conf").read_text()
    assert f"! {'-' * 40} 18446744073709551616 [1, 2, 3] 3.0   ab       x    7 a_b a,b 1" in text
    assert " 1 50% of 2000000 x at 12:3000000 1\n" in text  # digits outside a field's width are text


def test_an_error_names_its_line_in_a_run_of_text_and_values(tmp_path: Path) -> None:
    """Text and values between two tags are one piece of output (``JoinedOutput``): an error still names the line of
    the value that failed, not the run's first line."""
    (tmp_path / "frr").mkdir()
    template = tmp_path / "frr" / "bgp.j2"
    template.write_text("! {{ device.hostname }}\nrouter bgp {{ device.asn }}\n bgp router-id {{ device.bgp.nope }}\n")
    code, err = _build(INTENT, tmp_path / "out", "--templates", str(tmp_path))
    assert code == 2 and f"{template}:3:" in err and "nope" in err, err


def test_a_run_of_text_and_values_is_one_piece_with_the_same_text() -> None:
    source = "{% for n in numbers %}a {{ n }} b {{ n * 2 }}\n{% endfor %}{{ none }} {{ 1.5 }}{% if true %}x{% endif %}"
    numbers = {"numbers": [1, 2]}
    ours = render_module.Plain(trim_blocks=True).from_string(source)
    jinja = render_module.jinja2.Environment(trim_blocks=True).from_string(source)
    assert ours.render(numbers) == jinja.render(numbers) == "a 1 b 2\na 2 b 4\nNone 1.5x"
    assert len(list(ours.generate(numbers))) == 4 < len(list(jinja.generate(numbers)))
