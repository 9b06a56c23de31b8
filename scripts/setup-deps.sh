#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Install every Debian package that ibflow's build, tests and demo need.
# Idempotent: packages already present are not downloaded again, and
# `apt-get update` runs only when something is missing.
set -euo pipefail

PKGS=(
  # build
  build-essential autoconf automake libtool pkg-config clang
  # libibflow + CLI
  libjson-c-dev
  # OpenSM plugin and fabric simulation
  opensm libopensm-dev libibumad-dev ibsim-utils infiniband-diags
  # UCX component and MPI
  libibverbs-dev libucx-dev ucx-utils libopenmpi-dev openmpi-bin
  # tests, optional evaluation back-ends and plots
  libcmocka-dev libglpk-dev gnuplot-nox python3
  # metrics: promtool checks the text format, node_exporter serves it
  prometheus prometheus-node-exporter
  # emulated fabrics (scripts/netns-fabric) and their tests
  iproute2 util-linux iputils-ping
  # `ibflow slurm-topology` read back by the real slurmctld
  slurmctld slurm-client munge
)
# Soft-RoCE tests (scripts/softroce-vm, tests/vm/): rdma_rxe runs in a qemu
# VM booted from Debian's own kernel, because kernels of containers and CI
# machines usually lack RDMA.  linux-image-amd64 is needed only for that
# kernel and its modules (rdma_rxe, 9p, overlay, veth) in /boot and
# /lib/modules; it pulls initramfs-tools and takes about 5 minutes to
# install on a fresh machine.  IBFLOW_NO_VM=1 leaves these packages out
# (the VM tests are then skipped, with the reason).
if [ "${IBFLOW_NO_VM:-0}" != 1 ]; then
  PKGS+=(qemu-system-x86 linux-image-amd64 busybox-static cpio
         rdma-core ibverbs-utils ibverbs-providers perftest)
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup-deps: missing packages: ${missing[*]}" >&2
  echo "setup-deps: run as root (or install them yourself)" >&2
  exit 1
fi

echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
