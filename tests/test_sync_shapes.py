"""``designer sync nautobot`` of designs whose servers take other shapes: multiplane NICs (each port a cable to
each plane's leaf, addresses in each plane's namespace) and rack-scale systems (every part of the rack a device).
The proof is Nautobot's own, as in tests/test_sync.py, whose helpers and lab this module shares: its API serves back
what the sync wrote and its change log shows what a second sync and growth change. A file of its own so that a run
on two cores syncs into two Nautobots at once, one beside each file."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from designer.cli import main
from designer.intent.nic_names import server_interfaces
from designer.sync import nautobot
from designer.sync.inventory import folder_inventory
from tests.nautobot_lab import NautobotLab
from tests.prerequisites import NAUTOBOT
from tests.test_sync import NAME, NETWORKS, changes, client, keys, lab, newest, sync

NEEDED_BY_FIXTURE = {"lab": (NAUTOBOT,)}
__all__ = ["lab"]  # the Nautobot of tests/test_sync.py's fixture, one per module


MODES = ("swplb", "hwplb")


def multiplane_intent(mode: str, servers: int) -> str:
    """Two servers of two ConnectX-8 800G ports, each port serving two planes of 400G (``mode``): the smallest
    multiplane design, 2 leaves and a spine per plane, growing to 4 servers."""
    return (
        f"name: {NAME}-{mode}\ncompute: {{servers: {servers}, gpus_per_server: 4, nics_per_server: 2, nic: nvidia-cx8, "
        f"nic_speed: 800G, server_power_kw: 6, multiplane: {{planes: 2, mode: {mode}}}}}\n"
        "growth: {max_servers: 4}\nfabric: {tiers: 2, leaf: {ports: 8, speed: 400G}}\ntargets: [eos, frr]\n"
    )


@pytest.fixture(scope="module")
def multiplane(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Path]:
    """Each mode's design with 2 servers and grown to 4, by (mode, servers)."""
    root = tmp_path_factory.mktemp("multiplane")
    built = {}
    for mode in MODES:
        for servers in (2, 4):
            folder = root / f"{mode}-{servers}"
            folder.mkdir()
            (folder / "intent.yaml").write_text(multiplane_intent(mode, servers))
            assert main(["build", str(folder / "intent.yaml"), "-o", str(folder / "out")]) in (0, 1)
            built[mode, servers] = folder / "out"
    return built


def plane_links(folder: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """Every server link of a multiplane build as its cable in Nautobot would join it: (server, the server's
    interface) to (leaf, the leaf's EOS port), the server's interface named as ``designer audit`` names it (the
    fabric rebuilt: designer/audit/names.py) and as the tray's lldpd.conf configures it."""
    from designer.audit.names import port_names

    design = json.loads((folder / "design.json").read_text())
    servers = port_names(folder, design["devices"]).servers
    links = {}
    for link in design["links"]:
        if link["tier"] == "server_leaf":
            server, port = link["z"][0], link["z"][1]
            named = [name for name, design_port in servers[server].items() if design_port == port]
            interface = next((name for name in named if name != port), port)  # its Linux name, when it has another
            links[server, interface] = (link["a"][0], link["os_ports"]["eos"][0])
    for server in {server for server, _ in links}:
        lldpd = (folder / "servers" / server / "lldpd.conf").read_text()
        assert set(re.findall(r"^configure ports (\S+) lldp", lldpd, re.M)) == {
            interface for name, interface in links if name == server
        }
    return links


@pytest.mark.parametrize("mode", MODES)
def test_a_plane_link_is_a_cable_between_a_server_interface_and_its_planes_leaf(
    multiplane: dict[tuple[str, int], Path], mode: str
) -> None:
    """Each plane link is a cable of its own from the server's interface on it (swplb: the plane's own interface;
    hwplb: the plane PF) to the leaf of its plane, as the audit and the tray's lldpd.conf name them; the servers'
    device type holds those interfaces at the plane speed."""
    folder = multiplane[mode, 2]
    objects = folder_inventory(folder)
    cables = {(key[3], key[4]): (key[1], key[2]) for key in (item.key for item in objects.of("cable"))}
    links = plane_links(folder)
    assert {end: cables[end] for end in links} == links and len(links) == 2 * 2 * 2
    server_type = next(item for item in objects.of("device_type") if item.key[1].startswith("custom "))
    assert server_type.key[1] == f"custom 2x400G {mode}"
    assert sorted(port.name for port in server_type.fields["ports"]) == sorted({port for _, port in links})
    assert {port.speed_gbps for port in server_type.fields["ports"]} == {400}


@pytest.mark.parametrize("mode", MODES)
def test_a_server_interfaces_address_is_the_one_its_netplan_gives_the_interface_or_its_rail(
    multiplane: dict[tuple[str, int], Path], mode: str
) -> None:
    """swplb: every plane interface has its own /31, in the design's namespace, as the server's netplan.yaml sets
    it. hwplb: the rail's address (netplan.yaml's, on the rail's interface, PF0) is on every plane PF of the rail,
    each in its plane's namespace, where that plane's leaf holds the other end of the same /31."""
    import yaml

    folder = multiplane[mode, 2]
    objects = folder_inventory(folder)
    addresses = [item for item in objects.of("ip_address") if item.fields["device"].key[1] == "su0-srv0"]
    netplan = yaml.safe_load((folder / "servers" / "su0-srv0" / "netplan.yaml").read_text())["network"]["ethernets"]
    rails = {name: settings["addresses"] for name, settings in netplan.items()}
    found = {(item.key[0], item.fields["interface"]): item.key[1] for item in addresses}
    if mode == "swplb":
        assert found == {(f"{NAME}-swplb", name): address for name, (address,) in rails.items()}
        assert [item.key for item in objects.of("namespace")] == [(f"{NAME}-swplb",)]
    else:
        assert found == {
            (f"{NAME}-hwplb-plane{plane}", f"nic{rail}" if plane == 0 else f"nic{rail}s{plane}"): rails[f"nic{rail}"][0]
            for rail in range(2)
            for plane in range(2)
        }
        assert [item.key for item in objects.of("namespace")] == [(f"{NAME}-hwplb-plane0",), (f"{NAME}-hwplb-plane1",)]
    keys = [(item.kind, item.key) for item in objects.items]
    assert len(keys) == len(set(keys))  # one object a key: each namespace holds an address once


@pytest.mark.parametrize("mode", MODES)
def test_multiplane_growth_inside_the_envelope_only_adds_objects(
    multiplane: dict[tuple[str, int], Path], mode: str
) -> None:
    today, grown = keys(folder_inventory(multiplane[mode, 2])), keys(folder_inventory(multiplane[mode, 4]))
    assert len(grown) > len(today)
    assert {key: grown.get(key) for key in today} == today


@pytest.mark.parametrize("mode", MODES)
def test_a_multiplane_design_with_networks_beside_it_keeps_each_address_in_its_namespace(
    tmp_path: Path, mode: str
) -> None:
    """A multiplane backend beside a frontend, a storage network and an OOB network: the backend's addresses stay in
    the design's namespace (swplb) or their plane's (hwplb: the plane of the link's switch in design.json), every
    network's address and pool in the design's namespace, each key once; the servers' type holds the plane links
    and the networks' ports."""
    (tmp_path / "intent.yaml").write_text(multiplane_intent(mode, 2).replace("targets:", NETWORKS + "targets:"))
    assert main(["build", str(tmp_path / "intent.yaml"), "-o", str(tmp_path / "out")]) in (0, 1)
    objects = folder_inventory(tmp_path / "out")
    keys = [(item.kind, item.key) for item in objects.items]
    assert len(keys) == len(set(keys))
    design = json.loads((tmp_path / "out" / "design.json").read_text())
    name = design["name"]
    switches = [row for row in design["devices"] if row["role"] != "server"]
    namespace = {row["name"]: f"{name}-plane{row['plane']}" if mode == "hwplb" else name for row in switches}
    wanted = {(namespace[row["name"]], f"{row['loopback']}/32") for row in switches}
    for link in design["links"]:
        wanted.update({(namespace[link["a"][0]], f"{address}/31") for _, _, address in (link["a"], link["z"])})
    networks = {
        (name, f"{address}/31")
        for link in design["network_links"]
        if link["subnet"]
        for device, _, address in (link["a"], link["z"])
        if device != "core"
    }
    addresses = {item.key for item in objects.of("ip_address")}
    assert wanted <= addresses and networks <= addresses and not wanted & networks
    assert {key for key in addresses if key[0] != name} == {key for key in wanted if key[0] != name}
    network_pools = {cidr for pools in design["networks"].values() for cidr in pools.get("pools", {}).values()}
    assert network_pools and {(name, cidr) for cidr in network_pools} <= {item.key for item in objects.of("prefix")}
    server_type = next(item for item in objects.of("device_type") if item.key[1].startswith(f"custom 2x400G {mode}"))
    ports = {port.name for port in server_type.fields["ports"]}
    server = next(row for row in design["devices"] if row["role"] == "server")
    assert {*server_interfaces(server), "fe0", "st0", "bmc"} <= ports and len(server_interfaces(server)) == 4


def test_every_device_racks_csv_stands_in_a_rack_is_a_device_at_its_unit() -> None:
    """Issue #28: a rack-scale system's whole rack is in the inventory, read against the shipped GB300 NVL72
    design's racks.csv (written by the physical plan's own table, not by design.json): every compute tray, NVLink
    switch tray, power shelf and management switch is a device in its rack at its unit, the parts of a type named
    by the system with their management ports, and the rack's comments name its system."""
    folder = Path(__file__).parent.parent / "outputs" / "gb300-nvl72"
    objects = folder_inventory(folder)
    devices = {item.key[1]: item.fields for item in objects.of("device")}
    with (folder / "racks.csv").open() as table:
        racks = list(csv.DictReader(table))
    stands = {
        device: (row["rack"], int(unit))
        for row in racks
        for device, _, unit in (entry.partition("@") for entry in row["devices"].split())
    }
    assert {name: (fields["rack"].key[1], fields["position"]) for name, fields in devices.items()} == stands
    types = {item.key: item.fields for item in objects.of("device_type")}
    parts = {
        "sys0-nvswitch0": (
            "nvlink_switch_tray",
            ("gb300", "gb300-nvl72 NVLink switch tray"),
            ["bmc", "come1", "come2"],
        ),
        "sys0-powershelf7": ("power_shelf", ("gb300", "gb300-nvl72 power shelf"), ["mgmt"]),
    }
    for name, (role, model, ports) in parts.items():
        assert (devices[name]["role"].key, devices[name]["device_type"].key) == ((role,), model)
        assert [(port.name, port.speed_gbps) for port in types[model]["ports"]] == [(port, 1) for port in ports]
    assert devices["sys0-mgmt1"]["device_type"].key == ("nvidia", "nvidia-sn2201")  # the catalog's model
    comments = {item.key[1]: item.fields["comments"] for item in objects.of("rack")}
    system_racks = [row["rack"] for row in racks if row["role"] == "compute"]
    assert [comments[rack] for rack in system_racks[:2]] == [
        "rack-scale system sys0: one gb300-nvl72",
        "rack-scale system sys1: one gb300-nvl72",
    ]
    assert {comments[row["rack"]] for row in racks if row["role"] != "compute"} == {""}


SYSTEM_CATALOG = (
    "systems:\n  mini-nvl:\n    {trays: 2, tray_gpus: 4, tray_nics: 2, nic: nvidia-cx7, nic_speed: 400, planes: 1,"
    " north_south_nics: 0, north_south_nic: nvidia-bluefield3, tray_rack_units: 1, nvlink_switch_trays: 1,"
    " power_shelves: 1, management_switches: 1, power_kw: 30, power_source: a site survey, cooling: liquid,"
    " nvlink_gbyte_s: 900, management_switch: nvidia-sn2201, management_ports: {compute_tray: [bmc],"
    " nvlink_switch_tray: [bmc, come1, come2], power_shelf: [mgmt]}, rack_layout: [[management_switch, 1, 1],"
    " [power_shelf, 1, 1], [compute_tray, 1, 1], [nvlink_switch_tray, 1, 1], [compute_tray, 1, 1]],"
    " rack_layout_source: a site survey}\n"
)
"""A small rack-scale system of a site catalog: two trays, an NVLink switch tray, a power shelf and a management
switch, the management ports of NVIDIA's NVL72 parts."""


@pytest.fixture(scope="module")
def system_design(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two racks of the small system beside an out-of-band network that cables every part's management ports."""
    folder = tmp_path_factory.mktemp("system")
    (folder / "site.yaml").write_text(SYSTEM_CATALOG)
    (folder / "intent.yaml").write_text(
        f"name: {NAME}-system\ncatalog: site.yaml\ncompute: {{system: mini-nvl, systems: 2}}\n"
        "fabric: {tiers: 2, leaf: {ports: 8, speed: 400G}}\ntargets: [eos, frr]\nnetworks: {oob: {}}\n"
    )
    assert main(["build", str(folder / "intent.yaml"), "-o", str(folder / "out")]) in (0, 1)
    return folder / "out"


def test_a_rack_scale_systems_whole_rack_syncs(lab: NautobotLab, system_design: Path) -> None:
    """Issue #28: every part of a system's rack is a device in Nautobot (compute trays, NVLink switch trays, power
    shelves, management switches) at its unit, its management ports cabled to the rack's management switch; the
    rack's comments name its system. A part the catalog gives no unit stands in its rack at none, and a second sync
    changes nothing."""
    objects = folder_inventory(system_design)
    unplaced = next(item for item in objects.of("device") if item.key[1] == "sys1-powershelf0")
    moved = replace(unplaced, fields={**unplaced.fields, "position": None})
    objects = replace(objects, items=tuple(moved if item is unplaced else item for item in objects.items))
    plan = nautobot.sync(objects, nautobot.Api(lab.url, lab.token), dry_run=False, prune=False)
    assert not plan.conflicts and plan.creates["device"]
    api = client(lab)
    site = api.dcim.locations.get(name=objects.name)
    devices = {device.name: device for device in api.dcim.devices.filter(location=site.id)}
    assert set(devices) == {item.key[1] for item in objects.of("device")}
    with (system_design / "racks.csv").open() as table:
        stands = {
            device: (row["rack"], int(unit))
            for row in csv.DictReader(table)
            for device, _, unit in (entry.partition("@") for entry in row["devices"].split())
        }
    del stands["sys1-powershelf0"]
    assert {name: (devices[name].rack.name, devices[name].position) for name in stands} == stands
    assert (devices["sys1-powershelf0"].rack.name, devices["sys1-powershelf0"].position) == ("r01-02", None)
    switch_tray = devices["sys0-nvswitch0"]
    assert (switch_tray.role.name, switch_tray.device_type.model) == (
        "nvlink_switch_tray",
        "mini-nvl NVLink switch tray",
    )
    assert devices["sys0-powershelf0"].role.name == "power_shelf"
    ports = {row.name: row for row in api.dcim.interfaces.filter(device_id=switch_tray.id)}
    assert set(ports) == {"bmc", "come1", "come2"}
    ends = {(cable.termination_a_id, cable.termination_b_id) for cable in api.dcim.cables.filter(location_id=site.id)}
    management = {row.id for row in api.dcim.interfaces.filter(device_id=devices["sys0-mgmt0"].id)}
    for port in ports.values():  # each to a port of the rack's management switch
        assert any(port.id in pair and set(pair) & management for pair in ends), port.name
    assert api.dcim.racks.get(devices["sys0-tray0"].rack.id).comments == "rack-scale system sys0: one mini-nvl"
    again = nautobot.sync(objects, nautobot.Api(lab.url, lab.token), dry_run=False, prune=False)
    assert again.report(dry_run=False, prune=False) == "no change"


@pytest.mark.parametrize("mode", MODES)
def test_a_multiplane_design_syncs_as_designed_and_a_second_sync_changes_nothing(
    lab: NautobotLab, multiplane: dict[tuple[str, int], Path], mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read back through pynautobot: every plane link a cable from the server's interface on it (400G) to its
    plane's leaf, the pools' prefixes in the design's namespace (swplb) or in each plane's (hwplb), every address
    of design.json on its interface in the namespace of its plane; a dry run and a second sync write nothing, and
    a sync after growth only creates."""
    folder, name = multiplane[mode, 2], f"{NAME}-{mode}"
    before = newest(lab)
    assert sync(lab, folder, "--dry-run") == 0
    assert changes(lab, before) == []
    assert sync(lab, folder) == 0
    api = client(lab)
    site = api.dcim.locations.get(name=name)
    interfaces = {row.id: row for row in api.dcim.interfaces.filter(location=site.id)}
    ends = {row_id: (row.device.name, row.name) for row_id, row in interfaces.items()}
    cables = {
        ends[cable.termination_b_id]: ends[cable.termination_a_id]
        for cable in api.dcim.cables.filter(location_id=site.id)
        if ends[cable.termination_b_id][0].startswith("su")
    }
    assert cables == plane_links(folder)
    for server, port in cables:
        interface = next(row for row in interfaces.values() if (row.device.name, row.name) == (server, port))
        assert (interface.speed, interface.type.value) == (400_000_000, "400gbase-x-osfp")
    design = json.loads((folder / "design.json").read_text())
    plane = {row["name"]: row["plane"] for row in design["devices"] if row["role"] != "server"}
    namespaces = {0: name, 1: name} if mode == "swplb" else {0: f"{name}-plane0", 1: f"{name}-plane1"}
    pools = sorted(pool["cidr"] for pool in design["summary"]["pools"].values())
    for namespace in set(namespaces.values()):
        assert sorted(row.prefix for row in api.ipam.prefixes.filter(namespace=namespace)) == pools
    assert len(api.ipam.namespaces.filter(name=name)) == (mode == "swplb")  # hwplb: only the planes'
    server_end = {leaf_end: server_end for server_end, leaf_end in cables.items()}
    wanted: dict[tuple[str, str, str], str] = {}
    loopbacks: dict[str, set[str]] = {}
    for link in design["links"]:  # both ends of every /31, in the namespace of the link's plane
        namespace, (a_port, z_port) = namespaces[plane[link["a"][0]]], link["os_ports"]["eos"]
        wanted[namespace, f"{link['a'][2]}/31", link["a"][0]] = a_port
        z_device, z_port = server_end.get((link["a"][0], a_port), (link["z"][0], z_port))
        wanted[namespace, f"{link['z'][2]}/31", z_device] = z_port
    for row in design["devices"]:
        if row["role"] != "server":
            loopbacks.setdefault(namespaces[row["plane"]], set()).add(f"{row['loopback']}/32")
    on: dict[tuple[str, str, str], str] = {}
    for namespace in set(namespaces.values()):
        numbered = {
            address.id: address.address for address in api.ipam.ip_addresses.filter(namespace=namespace, mask_length=31)
        }
        for row in api.ipam.ip_address_to_interface.filter(ip_address=list(numbered)) if numbered else []:
            on[namespace, numbered[row.ip_address.id], ends[row.interface.id][0]] = ends[row.interface.id][1]
        found = api.ipam.ip_addresses.filter(namespace=namespace, mask_length=32)
        assert {address.address for address in found} == loopbacks[namespace]
    assert on == wanted
    written = newest(lab)
    capsys.readouterr()
    assert sync(lab, folder) == 0
    assert capsys.readouterr().out.endswith("no change\n")
    assert changes(lab, written) == []
    assert sync(lab, multiplane[mode, 4]) == 0  # grown: only creates (and the ports new cables plug into)
    added = changes(lab, written, ids=True)
    created = {entry.rpartition(" ")[2] for entry in added if entry.startswith("create ")}
    touched = sorted({entry for entry in added if entry.rpartition(" ")[2] not in created})
    assert created and all(entry.startswith("update dcim.interface ") for entry in touched), touched
