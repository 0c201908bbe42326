"""design.json exports each switch's device model (as pyavd exports structured configs), so that other tools start
from it: read back from the written file alone, it gives every field of the model the builder made, each port's
PFC headroom included."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

from designer.pipeline import build
from tests.test_intent_errors import run_cli

INTENT = """\
name: export
compute: {servers: 16, server: dgx-h100}
fabric: {leaf: {model: nvidia-sn5600}, spine: {model: generic-64x400g}}
routing: {bfd: {enabled: true, interval_ms: 300, multiplier: 3}}
targets: [eos]
"""
"""Leaves with the vendor's headroom lookup (tabulated cable lengths) and spines with the estimate (every length)."""


def test_design_json_gives_every_switch_model_back(tmp_path: Path) -> None:
    intent = tmp_path / "export.yaml"
    intent.write_text(INTENT)
    out = tmp_path / "out"
    code, _, err = run_cli("build", str(intent), "-o", str(out))
    assert code in (0, 1), err
    document = json.loads((out / "design.json").read_text())
    models = {device.hostname: device for device in build(intent).configs}
    rows = {row["name"]: row for row in document["devices"] if row["name"] in models}
    assert set(rows) == set(models)
    assert document["qos"] == json.loads(json.dumps(dataclasses.asdict(next(iter(models.values())).qos)))
    for name, model in models.items():
        config = rows[name]["config"]
        assert (config["mtu"], config["physical_ports"], config["breakout"], config["serdes_lanes"]) == (
            model.mtu,
            model.physical_ports,
            model.breakout,
            model.serdes_lanes,
        )
        assert config["sonic_sku"] == (model.sku.hwsku if model.sku else None)
        bgp = config["bgp"]
        assert (bgp["maximum_paths"], bgp["networks"], bgp["aggregates"]) == (
            model.bgp.maximum_paths,
            list(model.bgp.networks),
            list(model.bgp.aggregates),
        )
        assert bgp["bfd"] == {"interval_ms": 300, "multiplier": 3}
    vendor = set()
    for link in document["links"]:
        for side in ("a", "z"):
            device, port, _ = link[side]
            if device not in models:
                continue
            interface = next(item for item in models[device].interfaces if item.name == port)
            cable = max(1, math.ceil(link["length_m"]))
            row = next(row for row in rows[device]["config"]["headroom"] if row[0] >= cable)
            room = interface.headroom
            assert row == [room.cable_m, room.size, room.xon, room.xoff, room.vendor], (device, port)
            vendor.add(room.vendor)
    assert vendor == {True, False}
