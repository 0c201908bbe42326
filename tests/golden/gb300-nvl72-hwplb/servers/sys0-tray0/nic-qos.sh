#!/bin/sh
# sys0-tray0: RoCE QoS of the backend NICs, as on the switches (QoS profile nvidia): trust DSCP, PFC on
# priority 3 only, RoCE DSCP 26 -> priority 3, CNP DSCP 48 -> priority 6.
# NVIDIA ConnectX (MLNX_OFED / DOCA-OFED tools): run as root after every boot, e.g. from a systemd unit.
set -eu

# nic0 (mlx5_0), nic0s0+nic0s1: p0-su0-r0-leaf swp1s0, p1-su0-r0-leaf swp1s0
# hwplb: the NIC's 2 plane PFs (PCI functions nic0's + 0-1) each get trust, PFC,
# the DSCP map and the CNP DSCP; ECN goes on nic0 alone (NVIDIA NIC Configuration Operator, Spectrum-X RA3.0)
pf0=$(basename "$(readlink -f /sys/class/net/nic0/device)")
for function in 0 1; do
    pf=$(ls "/sys/bus/pci/devices/${pf0%.*}.$((${pf0##*.} + function))/net")
    mlnx_qos -i "$pf" --trust dscp --pfc 0,0,0,1,0,0,0,0
    mlnx_qos -i "$pf" --dscp2prio set,26,3
    mlnx_qos -i "$pf" --dscp2prio set,48,6
    echo 48 > "/sys/class/net/$pf/ecn/roce_np/cnp_dscp"
    echo 6 > "/sys/class/net/$pf/ecn/roce_np/cnp_802p_prio"
done
cma_roce_tos -d mlx5_0 -t 104
echo 1 > /sys/class/net/nic0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic0/ecn/roce_rp/enable/3

# nic1 (mlx5_1), nic1s0+nic1s1: p0-su0-r1-leaf swp1s0, p1-su0-r1-leaf swp1s0
# hwplb: the NIC's 2 plane PFs (PCI functions nic1's + 0-1) each get trust, PFC,
# the DSCP map and the CNP DSCP; ECN goes on nic1 alone (NVIDIA NIC Configuration Operator, Spectrum-X RA3.0)
pf0=$(basename "$(readlink -f /sys/class/net/nic1/device)")
for function in 0 1; do
    pf=$(ls "/sys/bus/pci/devices/${pf0%.*}.$((${pf0##*.} + function))/net")
    mlnx_qos -i "$pf" --trust dscp --pfc 0,0,0,1,0,0,0,0
    mlnx_qos -i "$pf" --dscp2prio set,26,3
    mlnx_qos -i "$pf" --dscp2prio set,48,6
    echo 48 > "/sys/class/net/$pf/ecn/roce_np/cnp_dscp"
    echo 6 > "/sys/class/net/$pf/ecn/roce_np/cnp_802p_prio"
done
cma_roce_tos -d mlx5_1 -t 104
echo 1 > /sys/class/net/nic1/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic1/ecn/roce_rp/enable/3

# nic2 (mlx5_2), nic2s0+nic2s1: p0-su0-r2-leaf swp1s0, p1-su0-r2-leaf swp1s0
# hwplb: the NIC's 2 plane PFs (PCI functions nic2's + 0-1) each get trust, PFC,
# the DSCP map and the CNP DSCP; ECN goes on nic2 alone (NVIDIA NIC Configuration Operator, Spectrum-X RA3.0)
pf0=$(basename "$(readlink -f /sys/class/net/nic2/device)")
for function in 0 1; do
    pf=$(ls "/sys/bus/pci/devices/${pf0%.*}.$((${pf0##*.} + function))/net")
    mlnx_qos -i "$pf" --trust dscp --pfc 0,0,0,1,0,0,0,0
    mlnx_qos -i "$pf" --dscp2prio set,26,3
    mlnx_qos -i "$pf" --dscp2prio set,48,6
    echo 48 > "/sys/class/net/$pf/ecn/roce_np/cnp_dscp"
    echo 6 > "/sys/class/net/$pf/ecn/roce_np/cnp_802p_prio"
done
cma_roce_tos -d mlx5_2 -t 104
echo 1 > /sys/class/net/nic2/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic2/ecn/roce_rp/enable/3

# nic3 (mlx5_3), nic3s0+nic3s1: p0-su0-r3-leaf swp1s0, p1-su0-r3-leaf swp1s0
# hwplb: the NIC's 2 plane PFs (PCI functions nic3's + 0-1) each get trust, PFC,
# the DSCP map and the CNP DSCP; ECN goes on nic3 alone (NVIDIA NIC Configuration Operator, Spectrum-X RA3.0)
pf0=$(basename "$(readlink -f /sys/class/net/nic3/device)")
for function in 0 1; do
    pf=$(ls "/sys/bus/pci/devices/${pf0%.*}.$((${pf0##*.} + function))/net")
    mlnx_qos -i "$pf" --trust dscp --pfc 0,0,0,1,0,0,0,0
    mlnx_qos -i "$pf" --dscp2prio set,26,3
    mlnx_qos -i "$pf" --dscp2prio set,48,6
    echo 48 > "/sys/class/net/$pf/ecn/roce_np/cnp_dscp"
    echo 6 > "/sys/class/net/$pf/ecn/roce_np/cnp_802p_prio"
done
cma_roce_tos -d mlx5_3 -t 104
echo 1 > /sys/class/net/nic3/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic3/ecn/roce_rp/enable/3
