"""Packaging: the sdist and the wheel carry the templates, the YAML data, SONiC's YANG models and the licenses;
the installed package finds its data from any directory; the published name is used everywhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml
from build import ProjectBuilder
from build.env import DefaultIsolatedEnv

from designer.files import shipped_templates, sonic_yang_models
from tests.conftest import ROOT

pytestmark = pytest.mark.meta

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NAME = PYPROJECT["project"]["name"]
BUILD_PATTERNS = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__")


def build_ignore(folder: str, names: list[str]) -> set[str]:
    """What a build from a copy of the checkout leaves out: caches, build leftovers and the shipped designs."""
    return set(BUILD_PATTERNS(folder, names)) | ({"outputs"} if Path(folder) == ROOT else set())


def files_under(folder: Path, pattern: str = "*") -> list[Path]:
    return sorted(path for path in folder.rglob(pattern) if path.is_file() and "__pycache__" not in path.parts)


def test_the_shipped_data_is_found_through_the_package() -> None:
    assert shipped_templates() == ROOT / "templates"
    assert (shipped_templates() / "frr" / "frr.conf.j2").is_file()
    assert sonic_yang_models() == ROOT / "designer" / "data" / "sonic-yang"


def test_the_distribution_name_is_not_the_unrelated_designer_project() -> None:
    assert NAME == "gpu-fabric-designer"
    assert PYPROJECT["project"]["scripts"] == {"designer": "designer.cli:console"}
    assert f"pip install {NAME}" not in (ROOT / "README.md").read_text()  # not published: from the repository


def test_the_workflow_example_installs_this_project_pinned_from_its_repository() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "ci" / "github-actions.yml").read_text())
    variables = workflow["env"]
    assert set(variables) >= {"DESIGNER_REPOSITORY", "DESIGNER_REF"} and variables["DESIGNER_REF"]
    installs = [step["run"] for step in workflow["jobs"]["gate"]["steps"] if "pip install" in step.get("run", "")]
    assert installs == [
        f'pip install "{NAME} @ git+https://github.com/${{{{ env.DESIGNER_REPOSITORY }}}}@${{{{ env.DESIGNER_REF }}}}"'
    ]


def test_an_install_builds_from_another_directory(tmp_path: Path) -> None:
    """Run as the installed command would be, outside the repository: templates and data come from the package."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-m", "designer.cli", "build", str(ROOT / "intents" / "cluster.yaml"), "-o", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    committed = ROOT / "outputs" / "cluster-a" / "configs" / "frr" / "p0-su0-r0-leaf.conf"
    assert (tmp_path / "out" / "configs" / "frr" / "p0-su0-r0-leaf.conf").read_bytes() == committed.read_bytes()


def built_distributions(tmp_path: Path) -> Path:
    """The folder of this checkout's sdist and wheel: the one .ci/run built moments before for its wheel smoke test
    ($DESIGNER_TEST_DIST), else one built here from a copy of the checkout as ``python -m build`` builds them (the
    sdist, then the wheel from that sdist, by the backend pyproject names, in an isolated environment), the two
    sharing one environment."""
    if os.environ.get("DESIGNER_TEST_DIST"):
        return Path(os.environ["DESIGNER_TEST_DIST"])
    source, dist, unpacked = tmp_path / "source", tmp_path / "dist", tmp_path / "unpacked"
    shutil.copytree(ROOT, source, ignore=build_ignore)
    with DefaultIsolatedEnv() as env:
        builder = ProjectBuilder.from_isolated_env(env, source)
        env.install(builder.build_system_requires)
        env.install(builder.get_requires_for_build("sdist"))
        with tarfile.open(builder.build("sdist", dist)) as archive:
            archive.extractall(unpacked, filter="data")
        (extracted,) = unpacked.iterdir()
        from_sdist = ProjectBuilder.from_isolated_env(env, extracted)
        env.install(from_sdist.get_requires_for_build("wheel"))
        from_sdist.build("wheel", dist)
    return dist


@pytest.mark.slow
def test_the_sdist_and_wheel_carry_templates_data_models_and_licenses(tmp_path: Path) -> None:
    dist = built_distributions(tmp_path)
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    assert wheel.name.startswith(NAME.replace("-", "_") + "-")

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        info = Parser().parsestr(archive.read(metadata).decode())
        licenses = {
            name.split(".dist-info/licenses/", 1)[1]: archive.read(name)
            for name in names
            if ".dist-info/licenses/" in name
        }
    expected = {path.relative_to(ROOT).as_posix() for path in files_under(ROOT / "designer", "*.py")}
    expected |= {"designer/catalog.yaml", "designer/qos_profiles.yaml", "designer/py.typed"}
    expected |= {path.relative_to(ROOT).as_posix() for path in files_under(ROOT / "designer" / "examples")}
    expected |= {path.relative_to(ROOT).as_posix() for path in files_under(ROOT / "designer" / "targets", "*.yaml")}
    expected |= {path.relative_to(ROOT).as_posix() for path in files_under(sonic_yang_models())}
    expected |= {
        f"designer/_templates/{path.relative_to(ROOT / 'templates').as_posix()}"
        for path in files_under(ROOT / "templates")
    }
    assert not expected - names, sorted(expected - names)
    assert "designer/data/sonic-yang/LICENSE" in names and "designer/data/sonic-yang/README.md" in names
    assert licenses["LICENSE"] == (ROOT / "LICENSE").read_bytes()
    assert (info["Name"], info["License-Expression"]) == (NAME, "Apache-2.0")

    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"LICENSE", "templates/frr/frr.conf.j2", "designer/data/sonic-yang/LICENSE"} <= members


UNUSED_BY_A_BUILD = ("urllib.request", "http.client", "email.parser", "ssl", "xml.sax", "xml.etree.ElementTree")
"""Modules a build has no use for: the web client stack that ``xml.sax.saxutils`` pulls in, and ElementTree,
which only JUnit reports need."""


def test_a_build_does_not_import_what_it_does_not_use(tmp_path: Path) -> None:
    """``designer build`` in a fresh process, as a user runs it: imports are part of its time (benchmarks/README.md,
    EOS against Arista's renderer: these 20 modules took about 48 ms), so none of UNUSED_BY_A_BUILD is loaded."""
    intent = tmp_path / "intent.yaml"
    intent.write_text("name: t\ncompute: {servers: 4, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g}}\n")
    script = (
        "import sys\nfrom designer.cli import main\ncode = main(['build', sys.argv[1], '-o', sys.argv[2]])\n"
        f"print(code, [name for name in {UNUSED_BY_A_BUILD!r} if name in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(intent), str(tmp_path / "out")], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines()[-1] == "0 []"
