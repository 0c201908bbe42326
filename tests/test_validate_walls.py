"""``designer validate-configs`` runs vtysh on configs anyone may have edited: a config reaches vtysh's own
commands after an ``end`` line (``output file PATH`` creates a file), so every vtysh it runs is walled off
(:mod:`designer.verify.sandbox`), as root and as an ordinary user; FRR's verdict on the file is still reported."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from designer.cli import main
from designer.verify.parsers import walled_check
from tests.conftest import ROOT, need
from tests.prerequisites import AS_ROOT, VTYSH, needs

LEAF = "p0-su0-r0-leaf"
USER = "nobody"
CLI = "import sys; from designer.cli import main; sys.exit(main(sys.argv[1:]))"

pytestmark = needs(VTYSH)


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may write in (an ordinary user's vtysh could otherwise create nothing there), in the
    repository rather than /tmp: the sandbox hides /tmp under a tmpfs, and the read-only machine must be proven."""
    folder = Path(tempfile.mkdtemp(prefix=".walls-", dir=ROOT))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """small-2tier built once with FRR's configurations only (the walls are vtysh's; the parsers of the other
    targets are libraries that run no program); each test tampers with a copy of it."""
    work = tmp_path_factory.mktemp("walls")
    intent = work / "small-2tier.yaml"
    intent.write_text((ROOT / "tests" / "intents" / "small-2tier.yaml").read_text() + "targets: [frr]\n")
    assert main(["build", str(intent), "-o", str(work / "small-2tier")]) == 0
    assert sorted(path.name for path in (work / "small-2tier" / "configs").iterdir()) == ["frr", "sysctl"]
    return work / "small-2tier"


def tampered_output(folder: Path, built: Path) -> tuple[Path, list[Path]]:
    """A copy in ``folder`` of the build ``built`` whose leaf config, after ``end``, asks vtysh to open files (in
    ``folder``, in the output itself, in /tmp) and another whose extra line FRR refuses; returns the output and the
    files no vtysh may create."""
    output = folder / "out"
    shutil.copytree(built, output)
    frr = output / "configs" / "frr"
    targets = [folder / "PWNED", frr / "PWNED", Path("/tmp") / f"{folder.name}-PWNED"]
    leaf = frr / f"{LEAF}.conf"
    leaf.write_text(leaf.read_text() + "end\n" + "".join(f"output file {target}\n" for target in targets))
    broken = sorted(path for path in frr.iterdir() if path != leaf)[0]
    broken.write_text(broken.read_text() + "router bgp not-a-number\n")
    for path in output.rglob("*"):
        path.chmod(0o777 if path.is_dir() else 0o666)
    output.chmod(0o777)
    return output, targets


def assert_walled(output: Path, targets: list[Path], exit_code: int, report: str) -> None:
    assert [target for target in targets if target.exists()] == []
    assert exit_code == 1, report
    assert f"ok      configs/frr/{LEAF}.conf (vtysh)" in report  # FRR itself accepts `output file`
    assert "INVALID configs/frr/" in report and "(vtysh): line " in report and "not-a-number" in report


@needs(AS_ROOT)
def test_validate_configs_as_root_lets_no_config_write_a_file(
    shared: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output, targets = tampered_output(shared, built)
    capsys.readouterr()
    code = main(["validate-configs", str(output)])
    assert_walled(output, targets, code, capsys.readouterr().out)


def as_nobody(command: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``command`` run as :data:`USER`, without supplementary groups."""
    user = pwd.getpwnam(USER)
    return subprocess.run(
        ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--", *command],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
        timeout=300,
    )


def python_for_nobody() -> str:
    """A Python :data:`USER` may start in a user namespace of its own (this one may live in root's home), after
    skipping unless setpriv is there and the kernel lets an ordinary user make user namespaces (its callers need
    root and vtysh)."""
    need(shutil.which("setpriv") is not None, "switches to the nobody user with setpriv: apt-get install util-linux")
    need(
        as_nobody(["unshare", "--user", "--map-root-user", "--mount", "--", "true"]).returncode == 0,
        "this kernel lets no ordinary user make a user namespace",
    )
    found = [
        python
        for python in (sys.executable, "/usr/bin/python3")
        if as_nobody(["unshare", "--user", "--map-root-user", "--", python, "-c", "pass"]).returncode == 0
    ]
    need(bool(found), f"{USER} may start no Python in a user namespace")
    return found[0]


@needs(AS_ROOT)
def test_an_ordinary_users_sandbox_lets_no_config_write_a_file(shared: Path, built: Path) -> None:
    """The sandbox as check_frr starts it for an ordinary user, run by nobody: verdicts, and no file written."""
    python = python_for_nobody()
    output, targets = tampered_output(shared, built)
    frr = output / "configs" / "frr"
    configs = [
        (frr / f"{LEAF}.conf").read_text(),
        *(path.read_text() for path in sorted(frr.iterdir()) if "not-a-number" in path.read_text()),
    ]
    run = as_nobody(walled_check(True, python), json.dumps(configs))
    assert run.returncode == 0, run.stderr
    (accepted, *_), (refused, _, says) = json.loads(run.stdout)
    assert (accepted, refused) == (0, 2) and "% Unknown command" in says and "not-a-number" in says
    assert [target for target in targets if target.exists()] == []


@needs(AS_ROOT)
def test_validate_configs_as_an_ordinary_user_lets_no_config_write_a_file(shared: Path, built: Path) -> None:
    if python_for_nobody() != sys.executable:
        pytest.skip(f"{USER} may not start this Python ({sys.executable}); the sandbox alone is tested as {USER}")
    output, targets = tampered_output(shared, built)
    run = as_nobody([sys.executable, "-c", CLI, "validate-configs", str(output)])
    assert_walled(output, targets, run.returncode, run.stdout + run.stderr)


def test_without_walls_vtysh_never_runs_and_validate_configs_says_what_to_allow(
    shared: Path, built: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ordinary user on a kernel that keeps user namespaces from ordinary users (an ``unshare`` that fails as
    it then does): exit 2 naming the setting, after the other parsers ran; no vtysh ran on the configs."""
    vtysh = shutil.which("vtysh")
    assert vtysh is not None
    output, targets = tampered_output(shared, built)
    programs = shared / "bin"
    programs.mkdir()
    (programs / "vtysh").symlink_to(str(vtysh))
    (programs / "unshare").write_text(
        "#!/bin/sh\necho 'unshare: write failed /proc/self/uid_map: Operation not permitted' >&2\nexit 1\n"
    )
    (programs / "unshare").chmod(0o755)
    monkeypatch.setenv("PATH", str(programs))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    capsys.readouterr()
    assert main(["validate-configs", str(output)]) == 2
    captured = capsys.readouterr()
    assert (
        "runs vtysh behind read-only walls (designer/verify/sandbox.py), which could not be built: unshare: "
        "write failed /proc/self/uid_map: Operation not permitted; as an ordinary user they need an "
        "unprivileged user namespace (Debian: sysctl kernel.unprivileged_userns_clone=1" in captured.err
    )
    assert "(vtysh)" not in captured.out
    assert [target for target in targets if target.exists()] == []


def test_a_sandbox_that_never_answers_is_a_prerequisite_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox bounds each vtysh itself; should the sandbox hang as a whole, the check stops at its limit and
    says so (exit 2 through PrerequisiteError), leaving no process behind."""
    vtysh = shutil.which("vtysh")
    assert vtysh is not None
    from designer.errors import PrerequisiteError
    from designer.verify import parsers

    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "vtysh").symlink_to(str(vtysh))
    (programs / "unshare").write_text("#!/bin/sh\nexec /bin/sleep 30\n")
    (programs / "unshare").chmod(0o755)
    config = tmp_path / "leaf.conf"
    config.write_text("hostname leaf\n")
    monkeypatch.setenv("PATH", str(programs))
    monkeypatch.setattr(parsers, "VTYSH_TIMEOUT_S", 0.5)
    with pytest.raises(PrerequisiteError, match=r"did not answer within 1 s"):
        parsers.check_frr([(config, "leaf.conf")], workers=1)


def test_as_root_without_the_frr_user_the_check_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vtysh drops to FRR's own user (Debian's frr package creates it) before it reads a config."""
    vtysh = shutil.which("vtysh")
    assert vtysh is not None
    from designer.errors import PrerequisiteError
    from designer.verify import parsers

    def no_such_user(name: str) -> pwd.struct_passwd:
        raise KeyError(f"getpwnam(): name not found: {name!r}")

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(pwd, "getpwnam", no_such_user)
    config = tmp_path / "leaf.conf"
    config.write_text("hostname leaf\n")
    with pytest.raises(PrerequisiteError, match=r"the frr user.*apt-get install frr"):
        parsers.check_frr([(config, "leaf.conf")], workers=1)
