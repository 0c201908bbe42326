"""ANTA's test catalog and inventory for an EOS design, made by Arista's pyavd from the AVD export
(:func:`designer.export.avd.inputs`): AVD's pipeline builds each switch's structured configuration, then
``pyavd.get_device_test_catalog`` the tests AVD derives from it (LLDP neighbours, point-to-point reachability, BGP
peers, interfaces, hardware), each scoped to its switch by a tag of its name.

Files: ``catalog.yml`` (every switch's tests, one ANTA catalog), ``inventory.yml`` (one ANTA host per switch,
reached by its name: add credentials on ``anta nrfu``'s command line), ``manifest.json``.
"""

from __future__ import annotations

from typing import Any

import yaml

from designer.design import Design
from designer.export.avd import inputs
from designer.verify.pyavd_eos import pyavd

PURPOSE = "making ANTA's catalog (AVD's own test generation)"


def structured_configs(design: Design) -> dict[str, dict[str, Any]]:
    """Each switch's structured configuration as AVD's eos_designs makes it from the export's inputs."""
    avd = pyavd(PURPOSE)
    validated = {}
    for hostname, variables in inputs(design).items():
        result = avd.validate_inputs(variables)
        if result.validated_data is None or result.validation_result.violations:
            raise ValueError(f"{hostname}: AVD refuses the exported inputs: {result.validation_result.violations}")
        validated[hostname] = result.validated_data
    facts = avd.get_avd_facts(validated)
    configs = {}
    for hostname, variables in validated.items():
        structured = avd.get_device_structured_config(hostname, variables, facts)._as_dict()
        configs[hostname] = avd.validate_structured_config(structured).validated_data
    return configs


def anta_files(design: Design) -> dict[str, bytes]:
    """``catalog.yml`` and ``inventory.yml`` of the design's switches."""
    pyavd(PURPOSE)  # asked first: the message says how to install it
    from anta.catalog import AntaCatalog
    from pyavd import get_device_test_catalog
    from pyavd.api.anta import AVDFabricData

    configs = structured_configs(design)
    fabric = AVDFabricData.from_structured_configs(configs)
    catalogs = [get_device_test_catalog(hostname, configs[hostname], fabric) for hostname in sorted(configs)]
    hosts = [{"name": hostname, "host": hostname, "tags": [hostname]} for hostname in sorted(configs)]
    return {
        "catalog.yml": AntaCatalog.merge_catalogs(catalogs).dump().yaml().encode(),
        "inventory.yml": yaml.safe_dump({"anta_inventory": {"hosts": hosts}}, sort_keys=False).encode(),
    }
