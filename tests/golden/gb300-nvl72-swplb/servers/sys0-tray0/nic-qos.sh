#!/bin/sh
# sys0-tray0: RoCE QoS of the backend NICs, as on the switches (QoS profile nvidia): trust DSCP, PFC on
# priority 3 only, RoCE DSCP 26 -> priority 3, CNP DSCP 48 -> priority 6.
# NVIDIA ConnectX (MLNX_OFED / DOCA-OFED tools): run as root after every boot, e.g. from a systemd unit.
set -eu

# nic0s0 (mlx5_0), nic0s0: p0-su0-r0-leaf swp1
mlnx_qos -i nic0s0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic0s0 --dscp2prio set,26,3
mlnx_qos -i nic0s0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_0 -t 104
echo 48 > /sys/class/net/nic0s0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic0s0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic0s0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic0s0/ecn/roce_rp/enable/3

# nic1s0 (mlx5_1), nic1s0: p0-su0-r1-leaf swp1
mlnx_qos -i nic1s0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic1s0 --dscp2prio set,26,3
mlnx_qos -i nic1s0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_1 -t 104
echo 48 > /sys/class/net/nic1s0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic1s0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic1s0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic1s0/ecn/roce_rp/enable/3

# nic2s0 (mlx5_2), nic2s0: p0-su0-r2-leaf swp1
mlnx_qos -i nic2s0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic2s0 --dscp2prio set,26,3
mlnx_qos -i nic2s0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_2 -t 104
echo 48 > /sys/class/net/nic2s0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic2s0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic2s0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic2s0/ecn/roce_rp/enable/3

# nic3s0 (mlx5_3), nic3s0: p0-su0-r3-leaf swp1
mlnx_qos -i nic3s0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic3s0 --dscp2prio set,26,3
mlnx_qos -i nic3s0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_3 -t 104
echo 48 > /sys/class/net/nic3s0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic3s0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic3s0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic3s0/ecn/roce_rp/enable/3

# nic0s1 (mlx5_4), nic0s1: p1-su0-r0-leaf swp1
mlnx_qos -i nic0s1 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic0s1 --dscp2prio set,26,3
mlnx_qos -i nic0s1 --dscp2prio set,48,6
cma_roce_tos -d mlx5_4 -t 104
echo 48 > /sys/class/net/nic0s1/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic0s1/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic0s1/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic0s1/ecn/roce_rp/enable/3

# nic1s1 (mlx5_5), nic1s1: p1-su0-r1-leaf swp1
mlnx_qos -i nic1s1 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic1s1 --dscp2prio set,26,3
mlnx_qos -i nic1s1 --dscp2prio set,48,6
cma_roce_tos -d mlx5_5 -t 104
echo 48 > /sys/class/net/nic1s1/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic1s1/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic1s1/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic1s1/ecn/roce_rp/enable/3

# nic2s1 (mlx5_6), nic2s1: p1-su0-r2-leaf swp1
mlnx_qos -i nic2s1 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic2s1 --dscp2prio set,26,3
mlnx_qos -i nic2s1 --dscp2prio set,48,6
cma_roce_tos -d mlx5_6 -t 104
echo 48 > /sys/class/net/nic2s1/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic2s1/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic2s1/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic2s1/ecn/roce_rp/enable/3

# nic3s1 (mlx5_7), nic3s1: p1-su0-r3-leaf swp1
mlnx_qos -i nic3s1 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i nic3s1 --dscp2prio set,26,3
mlnx_qos -i nic3s1 --dscp2prio set,48,6
cma_roce_tos -d mlx5_7 -t 104
echo 48 > /sys/class/net/nic3s1/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/nic3s1/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/nic3s1/ecn/roce_np/enable/3
echo 1 > /sys/class/net/nic3s1/ecn/roce_rp/enable/3
