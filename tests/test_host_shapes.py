"""Server files from shapes (``designer.render.servers``): with the shipped templates each file is rendered once per
shape of server and filled in with each server's own values; every file must be the bytes Jinja gives when the
template is rendered for that server itself, in every kind of server the templates branch on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from designer.backend.hosts import HostConfig
from designer.design import Design
from designer.render.environment import Renderer
from designer.render.servers import HostShapes, Shape, host_files, rendered_hosts, variables
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text

INTENTS = ROOT / "tests" / "intents"
WORKLOAD = "workloads:\n  - {name: dp, gpus: 64, bytes: 10GB, qps_per_connection: 4}\n"
DESIGNS = {
    "netplan, workloads": lambda: intent_text(servers=16, extra=WORKLOAD),
    "nmconnection keyfiles": lambda: intent_text(servers=16, extra="hosts: {format: nmconnection}"),
    "adaptive routing": lambda: intent_text(
        servers=4,
        server="dgx-b300",
        leaf="{model: nvidia-sn5600, speed: 400G}",
        extra="targets: [nvue]\nload_balancing: {mode: adaptive}",
    ),
    "spraying": lambda: intent_text(
        servers=4, server="dgx-b300", leaf="{model: nvidia-sn5600, speed: 400G}", extra="load_balancing: {mode: spray}"
    ),
    "another vendor's NIC": lambda: intent_text(servers=4, server="amd-mi300x", extra="targets: [frr]"),
    "GB300 trays": lambda: (INTENTS / "gb300-nvl72-small.yaml").read_text(),
    "hwplb multiplane": lambda: (INTENTS / "gb300-nvl72-hwplb.yaml").read_text(),
    "swplb multiplane": lambda: (INTENTS / "gb300-nvl72-swplb.yaml").read_text(),
    "InfiniBand": lambda: (INTENTS / "small-ib.yaml").read_text(),
}


def each_in_full(hosts: tuple[HostConfig, ...], renderer: Renderer) -> dict[str, bytes]:
    """Every server file, each template rendered by Jinja for its own server."""
    return {
        path: renderer.render_template(template, variables(host, nic), host.hostname).encode()
        for host in hosts
        for path, template, nic in host_files(host)
    }


@pytest.mark.parametrize("kind", DESIGNS)
def test_files_from_shapes_are_the_files_rendered_for_each_server(kind: str) -> None:
    design: Design = build_text(DESIGNS[kind]())
    renderer = Renderer()
    assert not renderer.overridden
    shaped = dict(rendered_hosts(design.hosts, renderer))
    assert list(shaped) == list(each_in_full(design.hosts, renderer))
    assert shaped == each_in_full(design.hosts, renderer)
    shapes = {Shape.of(host).host for host in design.hosts}
    assert len(shapes) < len(design.hosts), "servers alike share their shape"


def test_one_shape_holds_every_server_of_a_design_and_none_of_its_values() -> None:
    design = build_text(DESIGNS["GB300 trays"]())
    shapes = [Shape.of(host) for host in design.hosts]
    assert len({shape.host for shape in shapes}) == 1
    first = design.hosts[0]
    assert shapes[0].values[:3] == (first.hostname, first.nics[0].port, first.nics[0].address)
    marked = shapes[0].host
    own = [marked.hostname, *(value for nic in marked.nics for value in (nic.port, nic.address, nic.gateway))]
    own += [end for nic in marked.nics for leaf in nic.leaves for end in leaf]
    assert all(value.startswith("\x00value") for value in own)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # upper changes the marker itself
        (
            "# {{ host.hostname | upper }} {{ host.nics[0].address }}\n",
            lambda host: f"# {host.hostname.upper()} {host.nics[0].address}\n",
        ),
        # split('.') leaves a marker whole, so the marker check alone would fill in the whole address for its first
        # octet: the shape's first server rendered in full tells the difference
        (
            "# {{ host.nics[0].address.split('.')[0] }}\n",
            lambda host: f"# {host.nics[0].address.split('.')[0]}\n",
        ),
    ],
    ids=["changes-the-marker", "transforms-the-value-only"],
)
def test_a_template_that_changes_a_value_is_rendered_for_each_server(
    tmp_path: Path, template: str, expected: Callable[[HostConfig], str]
) -> None:
    (tmp_path / "hosts").mkdir()
    (tmp_path / "hosts" / "nccl.env.j2").write_text(template)
    design = build_text(DESIGNS["netplan, workloads"]())
    shapes = HostShapes(Renderer(tmp_path))
    files = dict(file for host in design.hosts[:3] for file in shapes.files(host))
    for host in design.hosts[:3]:
        assert files[f"servers/{host.hostname}/nccl.env"] == expected(host).encode()
