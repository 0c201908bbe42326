#!/bin/sh
# su0-srv14: RoCE QoS of the backend NICs, as on the switches (QoS profile nvidia): trust DSCP, PFC on
# priority 3 only, RoCE DSCP 26 -> priority 3, CNP DSCP 48 -> priority 6.
# NVIDIA ConnectX (MLNX_OFED / DOCA-OFED tools): run as root after every boot, e.g. from a systemd unit.
set -eu

# enp24s0np0 (mlx5_0), nic0: p0-su0-r0-leaf swp15
mlnx_qos -i enp24s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp24s0np0 --dscp2prio set,26,3
mlnx_qos -i enp24s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_0 -t 104
echo 48 > /sys/class/net/enp24s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp24s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp24s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp24s0np0/ecn/roce_rp/enable/3

# enp64s0np0 (mlx5_3), nic1: p0-su0-r1-leaf swp15
mlnx_qos -i enp64s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp64s0np0 --dscp2prio set,26,3
mlnx_qos -i enp64s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_3 -t 104
echo 48 > /sys/class/net/enp64s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp64s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp64s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp64s0np0/ecn/roce_rp/enable/3

# enp79s0np0 (mlx5_4), nic2: p0-su0-r2-leaf swp15
mlnx_qos -i enp79s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp79s0np0 --dscp2prio set,26,3
mlnx_qos -i enp79s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_4 -t 104
echo 48 > /sys/class/net/enp79s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp79s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp79s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp79s0np0/ecn/roce_rp/enable/3

# enp94s0np0 (mlx5_5), nic3: p0-su0-r3-leaf swp15
mlnx_qos -i enp94s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp94s0np0 --dscp2prio set,26,3
mlnx_qos -i enp94s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_5 -t 104
echo 48 > /sys/class/net/enp94s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp94s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp94s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp94s0np0/ecn/roce_rp/enable/3

# enp154s0np0 (mlx5_6), nic4: p0-su0-r4-leaf swp15
mlnx_qos -i enp154s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp154s0np0 --dscp2prio set,26,3
mlnx_qos -i enp154s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_6 -t 104
echo 48 > /sys/class/net/enp154s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp154s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp154s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp154s0np0/ecn/roce_rp/enable/3

# enp192s0np0 (mlx5_9), nic5: p0-su0-r5-leaf swp15
mlnx_qos -i enp192s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp192s0np0 --dscp2prio set,26,3
mlnx_qos -i enp192s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_9 -t 104
echo 48 > /sys/class/net/enp192s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp192s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp192s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp192s0np0/ecn/roce_rp/enable/3

# enp206s0np0 (mlx5_10), nic6: p0-su0-r6-leaf swp15
mlnx_qos -i enp206s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp206s0np0 --dscp2prio set,26,3
mlnx_qos -i enp206s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_10 -t 104
echo 48 > /sys/class/net/enp206s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp206s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp206s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp206s0np0/ecn/roce_rp/enable/3

# enp220s0np0 (mlx5_11), nic7: p0-su0-r7-leaf swp15
mlnx_qos -i enp220s0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i enp220s0np0 --dscp2prio set,26,3
mlnx_qos -i enp220s0np0 --dscp2prio set,48,6
cma_roce_tos -d mlx5_11 -t 104
echo 48 > /sys/class/net/enp220s0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/enp220s0np0/ecn/roce_np/cnp_802p_prio
echo 1 > /sys/class/net/enp220s0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/enp220s0np0/ecn/roce_rp/enable/3
