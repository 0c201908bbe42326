"""``designer sync nautobot``: the design's objects, and a real Nautobot (PyPI ``nautobot`` with the
``nautobot-bgp-models`` app, on Debian's PostgreSQL and Redis: tests/nautobot_lab.py) holding them.

The proof is Nautobot's own: its API serves back what the sync wrote (read with ``pynautobot``, Network to Code's
client), its validation accepts every object, and its change log (``/api/extras/object-changes/``) shows that a
second sync changes nothing and a sync after growth only creates. Designs whose servers take other shapes
(multiplane NICs, rack-scale systems) sync in tests/test_sync_shapes.py, beside a Nautobot of their own in a run
on several cores."""

from __future__ import annotations

import csv
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from designer.cli import main
from designer.sync import inventory as nautobot_inventory
from designer.sync import nautobot
from designer.sync.inventory import Inventory, folder_inventory
from tests.nautobot_lab import EARLY, NautobotLab, start_lab
from tests.prerequisites import NAUTOBOT

NAME = f"sync-{os.getpid()}"
"""The test design's name: its own location and namespace in the Nautobot, whichever run wrote there before."""
TODAY, GROWN = 4, 8
"""Servers of the design before and after growth inside its envelope (8 servers): small, as a busy 2-core machine
writes a few hundred objects a minute into Nautobot."""


FOUR = f"{NAME}-four"
"""The four-network test design's name: the backend of the test design beside a frontend, a storage network with
two storage servers and the out-of-band network."""
NETWORKS = (
    "networks:\n"
    "  frontend: {nics_per_server: 2, nic_speed: 400G, dual_homing: bgp, oversubscription: 3, border_leaves: 1, "
    "core_uplinks: 1}\n"
    "  storage: {nics_per_server: 1, nic_speed: 400G, oversubscription: 1, storage_nodes: {count: 2, "
    "nics_per_server: 1, nic_speed: 400G}}\n"
    "  oob: {}\n"
)


def intent(servers: int, targets: str = "eos, frr", name: str = NAME) -> str:
    # the four-network design's racks also hold the networks' switches: a little more power a rack
    facility = "facility: {rack_power_kw: 45}\n" + NETWORKS if name == FOUR else ""
    return (
        f"name: {name}\ncompute: {{servers: {servers}, gpus_per_server: 8, nics_per_server: 2, nic_speed: 400G, "
        f"server_power_kw: 10.2}}\ngrowth: {{max_servers: {GROWN}}}\n"
        f"fabric: {{tiers: 2, leaf: {{ports: 8, speed: 400G}}}}\ntargets: [{targets}]\n{facility}"
    )


def build(folder: Path, servers: int, targets: str = "eos, frr", name: str = NAME) -> Path:
    """Build the test design ``name`` (the four-network one: FOUR) with ``servers`` servers into ``folder``/name."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "intent.yaml").write_text(intent(servers, targets, name))
    assert main(["build", str(folder / "intent.yaml"), "-o", str(folder / name)]) in (0, 1)
    return folder / name


@pytest.fixture(scope="module")
def designs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("designs")
    return {
        "today": build(root / "today", TODAY),
        "grown": build(root / "grown", GROWN),
        "sonic": build(root / "sonic", TODAY, "sonic, frr"),
        "four": build(root / "four", TODAY, name=FOUR),
        "four-grown": build(root / "four-grown", GROWN, name=FOUR),
    }


def keys(objects: Inventory) -> dict[tuple[str, tuple[object, ...]], dict[str, object]]:
    """Every object but the record of the design's hash (a new one for each design), by kind and key."""
    return {(item.kind, item.key): item.fields for item in objects.items if item.kind != "design_record"}


@pytest.mark.parametrize("design", ["", "four"])
def test_growth_inside_the_envelope_only_adds_objects(designs: dict[str, Path], design: str) -> None:
    """Growth inside the envelope, with or without networks beside the backend: every object stays as it was."""
    before, after = ("four", "four-grown") if design else ("today", "grown")
    today, grown = keys(folder_inventory(designs[before])), keys(folder_inventory(designs[after]))
    assert len(grown) > len(today)
    assert {key: grown.get(key) for key in today} == today


@pytest.mark.parametrize("design", ["grown", "four-grown"])
def test_every_pointer_names_an_earlier_object(designs: dict[str, Path], design: str) -> None:
    seen: set[object] = set()
    for item in folder_inventory(designs[design]).items:
        for value in item.fields.values():
            if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], tuple):
                assert value in seen, (item.kind, item.key, value)
        seen.add(item.ref)


@pytest.mark.parametrize("design", ["today", "four"])
def test_eos_ports_are_the_names_of_the_eos_configuration(designs: dict[str, Path], design: str) -> None:
    """Every cable end on a switch is an interface that the switch's rendered EOS file configures: its Ethernet
    ports, and with an out-of-band network its management port (``Management1``) too, in every network."""
    objects = folder_inventory(designs[design])
    rendered = sorted((designs[design] / "configs" / "eos").glob("*.cfg"))
    assert {path.stem for path in rendered} <= {item.key[1] for item in objects.of("device")}
    for path in rendered:
        configured = set(re.findall(r"^interface ((?:Ethernet|Management)\S+)$", path.read_text(), re.MULTILINE))
        cabled = {
            end[1] for cable in objects.of("cable") for end in (cable.key[1:3], cable.key[3:5]) if end[0] == path.stem
        }
        if design == "today":
            configured.discard("Management1")  # no OOB network: nothing cabled to it
        assert cabled and cabled == configured, path.stem


def test_sonic_ports_are_the_ports_of_config_db(designs: dict[str, Path]) -> None:
    """On a SONiC design, a switch's interfaces are the PORT table of its config_db.json, in lane order."""
    objects = folder_inventory(designs["sonic"])
    switch_type = next(item for item in objects.of("device_type") if item.key[1] != "custom")
    names = [port.name for port in switch_type.fields["ports"] if not port.virtual]
    config = json.loads((designs["sonic"] / "configs" / "sonic" / "p0-su0-r0-leaf.json").read_text())
    assert names == list(config["PORT"])


def test_a_four_network_design_holds_every_network(designs: dict[str, Path]) -> None:
    """Issue #28: the frontend, storage and out-of-band networks are in the inventory as the build's files give
    them: every switch and storage server of design.json's ``network_devices`` in its rack, every cable of
    cabling.csv between two of the design's devices with its length and medium (the core beyond the frontend is the
    data centre's), every pool a prefix, both ends' addresses of every numbered link, every switch's loopback and
    every management address of oob.csv on its device's port; a device type lists every port its devices use."""
    folder = designs["four"]
    objects = folder_inventory(folder)
    assert len({item.ref for item in objects.items}) == len(objects.items)  # no object twice
    design = json.loads((folder / "design.json").read_text())
    devices = {item.key[1]: item.fields for item in objects.of("device")}
    placed = [row for row in design["network_devices"] if "rack" in row]
    assert {row["network"] for row in placed} == {"frontend", "storage", "oob"}
    assert {row["role"] for row in placed} >= {"border_leaf", "storage_leaf", "storage", "management", "oob_spine"}
    assert set(devices) == {row["name"] for row in [*design["devices"], *placed]}
    for row in placed:
        fields = devices[row["name"]]
        assert (fields["role"].key, fields["rack"].key[1], fields["position"]) == (
            (row["role"],),
            row["rack"],
            row["unit"],
        )
    types = {item.key: {port.name: port for port in item.fields["ports"]} for item in objects.of("device_type")}

    def port(device: str, name: str) -> nautobot_inventory.Port:
        return types[devices[device]["device_type"].key][name]

    def interface(name: str) -> str:
        """A port of cabling.csv or oob.csv as the inventory names it: an EOS switch's management port is
        ``Management1`` (its rendered configuration's), every other port named alike."""
        return "Management1" if name == "mgmt" else name

    with (folder / "cabling.csv").open() as table:
        rows = [row for row in csv.DictReader(table) if "core" not in (row["a_device"], row["z_device"])]
    cables = list(objects.of("cable"))
    assert Counter((*item.key[1::2], *item.fields.values()) for item in cables) == Counter(
        (row["a_device"], row["z_device"], float(row["length_m"]), row["medium"]) for row in rows
    )
    ends = {item.key[1:] for item in cables}
    media = set()
    for row in rows:
        media.add(row["medium"])
        if row["network"] == "backend":
            assert (row["a_device"], row["a_port_eos"], row["z_device"], row["z_port_eos"]) in ends, row
        if not row["z_port"].startswith("swp"):  # a server's or storage server's NIC, a BMC, a management port
            z_port = interface(row["z_port"])
            assert any(end[2:] == (row["z_device"], z_port) and end[0] == row["a_device"] for end in ends), row
            assert port(row["z_device"], z_port).speed_gbps == int(row["speed_gbps"]), row
            assert port(row["z_device"], z_port).management == (row["z_port"] == "mgmt"), row
    for item in cables:  # both ends ports of their devices' types
        port(item.key[1], item.key[2]), port(item.key[3], item.key[4])
    assert media == {"aec", "dac", "multimode", "cat6"} and media <= set(nautobot.CABLE_TYPES)
    speeds = {port.speed_gbps for ports in types.values() for port in ports.values() if not port.virtual}
    assert 1 in speeds and speeds <= set(nautobot.INTERFACE_TYPES)
    prefixes = {item.key[1] for item in objects.of("prefix")}
    pools = [*design["networks"]["frontend"]["pools"].values(), *design["networks"]["storage"]["pools"].values()]
    assert prefixes == {pool["cidr"] for pool in design["summary"]["pools"].values()} | {
        *pools,
        design["networks"]["oob"]["pool"],
    }
    addresses = {item.key[1]: item.fields for item in objects.of("ip_address")}
    wanted = {}
    for link in design["network_links"]:
        for device, name, address in (link["a"], link["z"]):
            if link["subnet"] and device != "core":
                wanted[f"{address}/31"] = (device, name)
    with (folder / "oob.csv").open() as table:
        oob = list(csv.DictReader(table))
    assert len(oob) == len({row["device"] for row in oob}) == len(devices)  # one management address a device
    for row in oob:
        wanted[f"{row['address']}/{row['prefix_length']}"] = (row["device"], interface(row["port"]))
    for row in design["network_devices"]:
        if "loopback" in row:
            wanted[f"{row['loopback']}/32"] = (row["name"], "lo" if row["role"] == "server" else "Loopback0")
    for address, (device, name) in wanted.items():
        fields = addresses[address]
        assert fields["device"].key[1] == device, address
        if not name.startswith("swp"):  # a design port name of an EOS switch is its Ethernet port
            assert fields["interface"] == name, address
        port(device, fields["interface"])  # on a port of its device's type


@pytest.fixture(scope="module")
def one_server_four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four-network test design with one server: every network's switches and storage servers as with four, a
    sixth fewer objects to write into Nautobot."""
    return build(tmp_path_factory.mktemp("one-server-four"), 1, name=FOUR)


# A real Nautobot from here on.

NEEDED_BY_FIXTURE = {"lab": (NAUTOBOT,)}


@pytest.fixture(scope="module")
def lab(request: pytest.FixtureRequest) -> Iterator[NautobotLab]:
    """The Nautobot the run started early (tests/conftest.py: one process shares it among the modules that sync,
    and ends it at the end of the run), else one of the module's own (in a pytest-xdist worker: each module that
    syncs has one beside it), or the one at $DESIGNER_NAUTOBOT_URL (with $DESIGNER_NAUTOBOT_TOKEN): a throwaway
    test instance that a previous run may have written to (each run syncs designs of its own names; run such a
    run in one process, ``-n 0``, as two workers would write Nautobot's shared objects, its device types, at once)."""
    if os.environ.get("DESIGNER_NAUTOBOT_URL"):
        yield NautobotLab(Path(), os.environ["DESIGNER_NAUTOBOT_URL"], os.environ["DESIGNER_NAUTOBOT_TOKEN"])
        return
    early = request.config.stash.get(EARLY, None)
    if early is not None:
        yield early.wait()
        return
    started = start_lab()
    try:
        yield started
    finally:
        started.stop()


def sync(lab: NautobotLab, folder: Path, *options: str) -> int:
    return main(["sync", "nautobot", str(folder), "--url", lab.url, "--token", lab.token, *options])


def client(lab: NautobotLab):  # type: ignore[no-untyped-def]
    import pynautobot

    return pynautobot.api(lab.url, token=lab.token)


def newest(lab: NautobotLab) -> str:
    """The time of the newest entry of Nautobot's change log ("" while it has none): :func:`changes` lists what
    came after it."""
    page = nautobot.Api(lab.url, lab.token).call("GET", "extras/object-changes/?limit=1&depth=0")  # newest first
    return str(page["results"][0]["time"]) if page["results"] else ""


def changes(lab: NautobotLab, since: str, ids: bool = False) -> list[str]:
    """Every entry of Nautobot's change log newer than ``since`` (a time :func:`newest` gave; "": every entry),
    oldest first, as ``action kind`` (``ids``: and the object's id)."""
    api = nautobot.Api(lab.url, lab.token)
    rows = api.every("extras/object-changes", time__gt=since) if since else api.every("extras/object-changes")
    rows.sort(key=lambda row: row["time"])
    return [
        f"{row['action']['value']} {row['changed_object_type']}" + (f" {row['changed_object_id']}" if ids else "")
        for row in rows
    ]


def test_sync_writes_the_design_and_a_second_sync_changes_nothing(
    lab: NautobotLab, designs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = newest(lab)
    assert sync(lab, designs["today"], "--dry-run") == 0
    assert "would create" in capsys.readouterr().out
    assert changes(lab, before) == []
    assert sync(lab, designs["today"]) == 0
    api = client(lab)
    objects = folder_inventory(designs["today"])
    site = api.dcim.locations.get(name=NAME)
    assert [objects.design_sha256 in note.note for note in api.extras.notes.filter(assigned_object_id=site.id)] == [
        True
    ]
    devices = {device.name: device for device in api.dcim.devices.filter(location=site.id)}
    assert set(devices) == {item.key[1] for item in objects.of("device")}
    leaf = devices["p0-su0-r0-leaf"]
    row = next(
        row for row in json.loads((designs["today"] / "design.json").read_text())["devices"] if row["name"] == leaf.name
    )
    assert leaf.platform.name == "eos" and leaf.role.name == "leaf" and leaf.position == row["unit"]
    assert leaf.rack.name == row["rack"]
    interfaces = {row.name: row for row in api.dcim.interfaces.filter(device_id=leaf.id)}
    assert set(interfaces) == {*(f"Ethernet{port}" for port in range(1, 9)), "Loopback0"}
    assert interfaces["Ethernet1"].speed == 400_000_000 and interfaces["Ethernet1"].type.value == "400gbase-x-osfp"
    cable = interfaces["Ethernet1"].cable
    assert cable is not None
    assert len(api.dcim.cables.filter(location_id=site.id)) == len(list(objects.of("cable")))
    loopback = api.ipam.ip_addresses.get(address=f"{row['loopback']}/32", namespace=NAME)
    assert [row.interface.id for row in api.ipam.ip_address_to_interface.filter(ip_address=loopback.id)] == [
        interfaces["Loopback0"].id
    ]
    instance = api.plugins.bgp.routing_instances.get(device_id=leaf.id)
    assert instance.autonomous_system.asn == row["asn"] and instance.router_id.id == loopback.id
    written = newest(lab)
    assert sync(lab, designs["today"]) == 0
    assert capsys.readouterr().out.endswith("no change\n")
    assert changes(lab, written) == []


def test_a_four_network_design_syncs_every_network(
    lab: NautobotLab, one_server_four: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #28: a design with a frontend, a storage network and an out-of-band network syncs whole, Nautobot's
    validation accepting every object: its API serves back every network's switches and storage servers, every
    cable with its type, a server's ports in every network (its BMC a 1G copper port on a Category 6 cable), each
    switch's management port, every pool and every address, the management addresses of oob.csv on their ports;
    --dry-run before it writes nothing, a second sync changes nothing (the four-network design with one server)."""
    folder = one_server_four
    objects = folder_inventory(folder)
    before = newest(lab)
    assert sync(lab, folder, "--dry-run") == 0
    assert "would create" in capsys.readouterr().out and changes(lab, before) == []
    assert sync(lab, folder) == 0
    api = client(lab)
    site = api.dcim.locations.get(name=FOUR)
    devices = {device.name: device for device in api.dcim.devices.filter(location=site.id)}
    assert set(devices) == {item.key[1] for item in objects.of("device")}
    roles = {name: devices[name].role.name for name in ("fe-border0", "st-sg0-leaf0", "storage0", "oob-spine0")}
    assert roles == {"fe-border0": "border_leaf", "st-sg0-leaf0": "storage_leaf", "storage0": "storage"} | {
        "oob-spine0": "oob_spine"
    }
    cables = api.dcim.cables.filter(location_id=site.id)
    wanted = Counter(nautobot.CABLE_TYPES[item.fields["medium"]] for item in objects.of("cable"))
    assert Counter(_value(cable.type) for cable in cables) == wanted and wanted["cat6"] > 0
    server = {row.name: row for row in api.dcim.interfaces.filter(device_id=devices["su0-srv0"].id)}
    assert set(server) == {"nic0", "nic1", "fe0", "fe1", "st0", "bmc", "lo"}
    bmc = server["bmc"]
    assert _value(bmc.type) == "1000base-t" and bmc.speed == 1_000_000 and bmc.cable is not None
    assert _value(api.dcim.cables.get(bmc.cable.id).type) == "cat6"
    leaf = {row.name: row for row in api.dcim.interfaces.filter(device_id=devices["fe-g0-leaf0"].id)}
    assert leaf["Management1"].mgmt_only and leaf["Management1"].cable is not None
    assert {row.prefix for row in api.ipam.prefixes.filter(namespace=FOUR)} == {
        item.key[1] for item in objects.of("prefix")
    }
    addresses = {row.address: row for row in api.ipam.ip_addresses.filter(namespace=FOUR)}
    assert set(addresses) == {item.key[1] for item in objects.of("ip_address")}
    with (folder / "oob.csv").open() as table:
        row = next(row for row in csv.DictReader(table) if row["device"] == "su0-srv0")
    address = addresses[f"{row['address']}/{row['prefix_length']}"]
    assert [link.interface.id for link in api.ipam.ip_address_to_interface.filter(ip_address=address.id)] == [bmc.id]
    capsys.readouterr()
    written = newest(lab)
    assert sync(lab, folder) == 0
    assert capsys.readouterr().out.endswith("no change\n")
    assert changes(lab, written) == []


def test_devices_sharing_a_unit_stop_the_sync_before_it_writes(lab: NautobotLab, designs: dict[str, Path]) -> None:
    """A build never stands two devices at one unit (the networks check fails one that would), but an inventory that
    does (a folder's tables placed by hand) is refused whole: Nautobot would refuse the second device halfway
    through the writes."""
    objects = folder_inventory(designs["four"])
    racked = [item for item in objects.of("device") if item.fields.get("position")]
    first = racked[0]
    second = next(item for item in racked[1:] if item.fields["rack"] == first.fields["rack"])
    moved = replace(second, fields={**second.fields, "position": first.fields["position"]})
    stacked = replace(objects, items=tuple(moved if item is second else item for item in objects.items))
    before = newest(lab)
    plan = nautobot.sync(stacked, nautobot.Api(lab.url, lab.token), dry_run=False, prune=False)
    rack, unit = first.fields["rack"].key[1], first.fields["position"]
    assert f"devices {first.key[1]} and {second.key[1]} both stand at unit {unit} of rack {rack}" in "".join(
        plan.conflicts
    )
    assert changes(lab, before) == []


def _value(choice: object) -> object:
    """A choice field as pynautobot serves it (an object with ``value``, or the value itself)."""
    return getattr(choice, "value", choice)


@pytest.mark.parametrize("design", ["today", "four"])
def test_an_unchanged_sync_reads_each_list_once_and_writes_nothing(
    lab: NautobotLab, designs: dict[str, Path], one_server_four: Path, design: str
) -> None:
    """Issue #28: a second sync only reads, one list per kind of object (filtered by the design's location or
    namespace, in pages of 1,000, without nested objects), however large the design: the interfaces once, through
    GraphQL, which serializes only their ids and names (for the cables' ends), the device types' interface templates
    together, the addresses with their interfaces (no read per interface), nothing read twice; with networks beside
    the backend too (the four-network design with one server)."""
    objects = folder_inventory(one_server_four if design == "four" else designs[design])
    nautobot.sync(objects, nautobot.Api(lab.url, lab.token), dry_run=False, prune=False)
    requests: list[tuple[str, str]] = []

    class Counting(nautobot.Api):
        def call(self, method: str, path: str, body: object = None) -> object:
            requests.append((method, path))
            return super().call(method, path, body)

    plan = nautobot.sync(objects, Counting(lab.url, lab.token), dry_run=False, prune=False)
    assert plan.report(False, False) == "no change"
    assert [path for method, path in requests if method != "GET"] == [nautobot.GRAPHQL]  # a read: the interfaces
    lists = [path.partition("?")[0] for _, path in requests]
    read_twice = sorted({path for path in lists if lists.count(path) > 1})
    assert read_twice == [], read_twice
    assert "ipam/ip-address-to-interface/" not in lists and "dcim/interfaces/" not in lists
    assert all("depth=0" in path and "limit=1000" in path for _, path in requests if path != nautobot.GRAPHQL)


def test_growth_only_creates_and_prune_deletes_what_the_design_lost(
    lab: NautobotLab, designs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert sync(lab, designs["today"]) == 0
    before = newest(lab)
    assert sync(lab, designs["grown"]) == 0
    added = changes(lab, before, ids=True)
    created = {entry.rpartition(" ")[2] for entry in added if entry.startswith("create ")}
    touched = sorted({entry for entry in added if entry.rpartition(" ")[2] not in created})
    # Nothing that existed before the growth changed but interfaces a new cable plugs into, which Nautobot itself
    # logs as updated (their cable): the spines' free ports and the new devices' ports, made with their device.
    assert created and all(entry.startswith("update dcim.interface ") for entry in touched), touched
    gone = sorted(
        {item.key[1] for item in folder_inventory(designs["grown"]).of("device")}
        - {item.key[1] for item in folder_inventory(designs["today"]).of("device")}
    )
    assert sync(lab, designs["today"]) == 0  # back to today's servers: without --prune nothing goes
    assert "kept" in capsys.readouterr().out
    assert len(client(lab).dcim.devices.filter(location=NAME, name=gone)) == len(gone) > 0
    assert sync(lab, designs["today"], "--prune") == 0
    assert len(client(lab).dcim.devices.filter(location=NAME, name=gone)) == 0
    after = newest(lab)
    assert sync(lab, designs["today"]) == 0
    assert changes(lab, after) == []


@pytest.mark.parametrize("stop", ["after six writes", "before the cables' tags"])
def test_an_interrupted_sync_completes_on_the_next_run(lab: NautobotLab, designs: dict[str, Path], stop: str) -> None:
    """A sync stopped after a few bulk writes (as a killed process would be), or between making the cables and
    tagging them (Nautobot 3.2 stores a new cable without its tags: a second request sets them), leaves a
    half-written design that the next run completes: it creates what is missing, tags its own cables between its
    own devices, and changes nothing else that is there."""
    suffix = "b" if stop == "after six writes" else "d"
    objects = folder_inventory(designs["today"])
    objects = Inventory(
        f"{NAME}-{suffix}", objects.design_sha256, tuple(_renamed(item, suffix) for item in objects.items)
    )

    class Stopping(nautobot.Api):
        def call(self, method: str, path: str, body: object = None) -> object:
            tags = method == "PATCH" and path.startswith("dcim/cables/")
            if method != "GET" and (self.writes >= 6 if stop == "after six writes" else tags):
                raise KeyboardInterrupt
            return super().call(method, path, body)

    with pytest.raises(KeyboardInterrupt):
        nautobot.sync(objects, Stopping(lab.url, lab.token), dry_run=False, prune=False)
    api = nautobot.Api(lab.url, lab.token)
    sites = api.every("dcim/locations", name=f"{NAME}-{suffix}")
    notes = api.every(f"dcim/locations/{sites[0]['id']}/notes") if sites else []
    assert not [note for note in notes if nautobot.RECORD.search(note["note"])]  # no record claims it was synced
    plan = nautobot.sync(objects, nautobot.Api(lab.url, lab.token), dry_run=False, prune=False)
    assert plan.creates and not plan.conflicts
    assert set(plan.updates) == (set() if stop == "after six writes" else {"cable"})
    again = nautobot.sync(objects, nautobot.Api(lab.url, lab.token), dry_run=True, prune=False)
    assert again.report(True, False) == "no change"


def _renamed(item: nautobot.Item, suffix: str) -> nautobot.Item:
    """``item`` of another cluster, NAME-``suffix``: its own location, racks, devices, cables and namespace."""
    from designer.sync.inventory import Item, Ref

    def rename(value: object) -> object:
        if isinstance(value, Ref):
            return Ref(value.kind, tuple(rename(part) for part in value.key))
        return f"{NAME}-{suffix}" if value == NAME else value

    return Item(item.kind, tuple(rename(part) for part in item.key), {k: rename(v) for k, v in item.fields.items()})


def test_an_incompatible_device_type_stops_the_sync_before_it_writes(
    lab: NautobotLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device type of the same model whose interfaces are named otherwise (as a devicetype-library import of
    another OS would be) is shown and left alone, and nothing is written."""
    api = client(lab)
    maker = api.dcim.manufacturers.get(name="generic") or api.dcim.manufacturers.create(name="generic")
    other = api.dcim.device_types.get(model="generic-32x400g") or api.dcim.device_types.create(
        manufacturer=maker.id, model="generic-32x400g", u_height=1
    )
    if not api.dcim.interface_templates.filter(device_type=other.id):
        api.dcim.interface_templates.create(device_type=other.id, name="eth1", type="400gbase-x-osfp")
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "intent.yaml").write_text(
        f"name: {NAME}-c\ncompute: {{servers: 4, server: dgx-h100}}\nfabric: {{leaf: {{model: generic-32x400g}}}}\n"
        "targets: [eos]\n"
    )
    assert main(["build", str(folder / "intent.yaml"), "-o", str(folder / "out")]) in (0, 1)
    before = newest(lab)
    assert sync(lab, folder / "out") == 2
    error = capsys.readouterr().err
    assert "device_type generic/generic-32x400g exists in Nautobot but its interfaces differ" in error
    assert "Nautobot has eth1" in error and "Ethernet1" in error and "nothing was written" in error
    assert changes(lab, before) == []


def test_a_bad_token_is_an_input_error(
    lab: NautobotLab, designs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = newest(lab)
    assert main(["sync", "nautobot", str(designs["today"]), "--url", lab.url, "--token", "0" * 40]) == 2
    error = capsys.readouterr().err
    assert "refused the token (40" in error and "--token" in error and "Traceback" not in error
    assert changes(lab, before) == []


def test_an_unreachable_server_is_an_input_error(designs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from tests.nautobot_lab import free_port

    url = f"http://127.0.0.1:{free_port()}"
    assert main(["sync", "nautobot", str(designs["today"]), "--url", url, "--token", "x"]) == 2
    error = capsys.readouterr().err
    assert f"cannot reach Nautobot at {url}/api/" in error and "Connection refused" in error
    assert "Traceback" not in error
