"""summary.md's words on the hardware: the rack-scale system and its scalable units, the NVLink domain and the
backend NIC model, with what the server files leave to the NIC vendor's own tools."""

from __future__ import annotations

from designer.backend.sizing import Plan
from designer.catalog import Catalog, NicModel
from designer.intent import Intent
from designer.outputs.markdown import markdown_code, markdown_inline


def hardware_lines(intent: Intent, plan: Plan) -> list[str]:
    """The ``## Systems, NVLink and NICs`` section of summary.md, for a rack-scale system or a NIC whose QoS is
    left to its vendor's tools (empty for servers with NVIDIA's or unknown NICs: nothing to add there)."""
    nic = intent.catalog.nics.get(intent.server.nic or "")
    multiplane = intent.server.multiplane
    if intent.system is None and multiplane is None and (nic is None or nic.host_qos == "mlnx_qos"):
        return []
    lines = ["## Systems, NVLink and NICs", ""]
    system = intent.system
    if system:
        trays = plan.servers_per_system
        lines += [
            f"{intent.systems:,} x {system.name}, one rack each, never split: {system.trays} compute trays of "
            f"{system.tray_gpus} GPUs and {system.tray_nics} x {system.nic} at {system.nic_speed}G (the fabric's "
            f"servers, `sys<s>-tray<t>`), {system.north_south_nics} x {system.north_south_nic} per tray for storage "
            f"and in-band, {system.nvlink_switch_trays} NVLink switch trays, {system.power_shelves} power shelves, "
            f"{system.management_switches} management switches; {system.power_kw:g} kW per rack at most "
            f"({markdown_inline(system.power_source)}), {system.cooling} cooled.",
            "",
            f"Blocks of whole systems: {plan.systems_per_block} systems ({plan.systems_per_block * trays:,} trays) "
            f"each. A scalable unit (`su<n>`) is a leaf group: one leaf per rail and plane, its "
            f"{plan.servers_per_su} downlinks holding {plan.servers_per_su} trays of that rail; lcm({trays}, "
            f"{plan.servers_per_su}) = {plan.systems_per_block * trays:,} trays is the fewest whole systems that fill "
            f"whole scalable units, so each rail has {plan.sus_per_block} lea"
            f"{'f' if plan.sus_per_block == 1 else 'ves'} per plane in a block, one a scalable unit (a system's trays "
            "may sit in two of them).",
            "",
        ]
    if multiplane:
        lines += [_multiplane_line(intent, multiplane.planes, multiplane.mode, multiplane.port_speed), ""]
    domain_gpus = intent.server.gpus * intent.servers_per_system
    where = f"one {system.name}" if system else "one server"
    lines.append(
        f"NVLink (scale-up) domain: {domain_gpus} GPUs ({where}), "
        + (
            f"{intent.server.nvlink_gbyte_s:g} GB/s per GPU each way"
            if intent.server.nvlink_gbyte_s
            else "bandwidth not known (compute.nvlink_gbyte_s)"
        )
        + f": collectives stay inside it first, so a job of at most {domain_gpus} GPUs in one domain sends nothing "
        "to this fabric."
    )
    lines += ["", *_nic_lines(intent, intent.catalog), ""]
    return lines


def _multiplane_line(intent: Intent, planes: int, mode: str, port_speed: int) -> str:
    """How a multiplane NIC port is cabled, addressed and balanced in ``mode``."""
    rails, speed = intent.rails, intent.server.nic_speed
    cabled = (
        f"Multiplane ({mode}): each of the {rails} {port_speed}G NIC ports of a server serves {planes} planes of "
        f"{speed}G: one physical port and one cable (a twin-port module with a fiber to each plane's leaf, or a "
        f"splitter; `cabling.csv` gives its plane links `nic<i>s<plane>` one cable ID, `<server>/nic<i>`), and one "
        f"link per plane to the leaf of its rail in that plane, so the fabric has {planes} planes of {rails} rails. "
    )
    if mode == "hwplb":
        return cabled + (
            "The NIC joins its plane PFs in a LAG and balances the planes itself: the server has one interface, "
            "address, routing table and RDMA device per rail, and a NIC port's /31 is the same in every plane (each "
            "plane a fabric of its own; NVIDIA Network Operator, Hardware Multiplane Spectrum-X Quick Start)."
        )
    return cabled + (
        "Each plane of a NIC port is a PF of its own: the server has one interface, address, routing table and RDMA "
        "device per plane, and NCCL fuses the PFs of one NIC and balances the planes (`NCCL_IB_MERGE_NICS=1`; NVIDIA "
        "Network Operator, Software Multiplane Spectrum-X Quick Start)."
    )


def _nic_lines(intent: Intent, hardware: Catalog) -> list[str]:
    """What the server files say for the backend NIC model, and what they leave to its vendor's tools."""
    nic = hardware.nics.get(intent.server.nic or "")
    if nic is None:
        return [
            "Backend NICs: not a catalog model; taken to be NVIDIA ConnectX (`mlnx_qos` in `nic-qos.sh`, RDMA "
            "devices `mlx5_<i>` unless hosts.rdma_devices says otherwise). Name compute.nic for another vendor's."
        ]
    lines = [
        f"Backend NICs: {markdown_inline(nic.label)} ({nic.name}), driver {markdown_code(nic.driver)}, RDMA devices "
        f"{markdown_code(nic.rdma_names.replace('{}', '<i>'))}; source: {markdown_inline(nic.source)}."
    ]
    if nic.host_qos == "mlnx_qos":
        lines += [
            "",
            f"Host QoS: `servers/<server>/nic-qos.sh` with NVIDIA's tools ({markdown_inline(nic.qos_tools)}).",
        ]
        return lines
    return [*lines, "", *_vendor_qos_lines(intent, nic)]


def _vendor_qos_lines(intent: Intent, nic: NicModel) -> list[str]:
    """What a reviewer must set by hand on a NIC whose QoS designer does not write."""
    qos = intent.qos
    return [
        f"Not confirmed from a source designer holds: the exact commands of {markdown_inline(nic.qos_tools)} for "
        f"{markdown_inline(nic.label)}, so no `nic-qos.sh` is written (NVIDIA's `mlnx_qos` stops at its first line "
        f"on {markdown_inline(nic.label)}). Set "
        f"with the vendor's tools, on every backend NIC: trust DSCP; PFC on priority {qos.roce_priority} only; "
        f"RoCE DSCP {qos.roce_dscp} -> priority {qos.roce_priority}; CNP DSCP {qos.cnp_dscp} -> priority "
        f"{qos.cnp_priority}; ECN {'on' if qos.ecn else 'off'} for priority {qos.roce_priority} (the switches' "
        "values). The server files hold the rest: addresses, routes, rules, sysctls and the NCCL/RCCL "
        f"environment; check `NCCL_IB_GID_INDEX` against the NIC's RoCEv2 IPv4 GID (`ibv_devinfo -v`), not "
        f"confirmed here for {markdown_code(nic.driver)}.",
    ]


def nic_balancing_line(intent: Intent) -> str | None:
    """What the server files set on the backend NICs for the load-balancing mode, and what they leave to the NIC
    vendor's tools (None for a mode with no NIC side: ecmp, cluster)."""
    mode = intent.load_balancing.mode
    if mode not in ("adaptive", "spray") or intent.technology != "ethernet":
        return None
    nic = intent.catalog.nics.get(intent.server.nic or "")
    label = f"the backend NICs ({markdown_inline(nic.label)})" if nic else "the backend NICs"
    if mode not in intent.server.nic_modes:
        return f"NIC side of {mode}: {label} take no part in it (catalog `modes`), so the server files set nothing."
    if mode == "spray" or (nic and nic.host_qos != "mlnx_qos"):
        what = "spray each connection's packets themselves" if mode == "spray" else "reorder what the switches move"
        return (
            f"NIC side of {mode}: {label} {what}, but no "
            f"{markdown_inline(nic.vendor.upper()) if nic else 'vendor'} document at hand "
            "gives the setting that turns it on, so the server files write none: enable it with the vendor's tools, "
            f"or the analysis's {mode} figures do not hold."
        )
    return (
        f"NIC side of adaptive: `nic-qos.sh` sets `ROCE_ADAPTIVE_ROUTING_EN=1` on {label} ("
        "`mlxconfig`, non-volatile, from the next firmware reset or reboot) and the adaptive-routing fields of their "
        "`ROCE_ACCL` register (`mlxreg`: adaptive retransmission and transmit window on, slow restart off, adaptive "
        "routing forced), as NVIDIA's NIC Configuration Operator sets them in its Spectrum-X profiles."
    )
