#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# systemd-stage.sh OUTDIR - print (to stdout) the cpio archive that run.sh -S
# appends to the initramfs to boot the test VM with systemd as PID 1:
#
#   /init-systemd    the initramfs' init for this mode (rdinit=);
#   /stage/root/     copied into the tmpfs upper layer of the overlay root
#                    before it is mounted: the host's top-level symlinks and
#                    dynamic loader (resolved without 9p), generator masks,
#                    journald and manager settings, the test target and unit,
#                    and RT_VM_STAGE's tree when set (for example a
#                    "make install DESTDIR=" or a DKMS install);
#   /stage/local/    unit directories that init mounts as tmpfs copies over
#                    the overlay (listed in /stage/local.list), so that
#                    systemd's thousands of unit lookups never reach 9p.
#
# RT_VM_STAGE   a directory (inside the project tree or anywhere on the
#               host) merged into the guest's root.
# RT_VM_MASK    more units to mask (names, space separated).
# RT_VM_VERBOSE when set, the journal goes to the console too (debugging).
#
# The test unit rt-test.service runs selftests/vm/systemd-exec.sh, which
# runs RT_EXEC and powers the VM off.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

root=$tmp/stage/root
local=$tmp/stage/local
mkdir -p "$root/etc/systemd/system-generators" "$root/etc/systemd/journald.conf.d" \
	"$root/etc/systemd/system.conf.d" "$root/etc/udev/rules.d" "$local"
cp "$here/init-systemd" "$tmp/init-systemd"
chmod 755 "$tmp/init-systemd"

# Top-level symlinks (/bin, /lib, /lib64, /sbin ...) and the loader.
for e in /*; do
	[ -L "$e" ] && cp -a "$e" "$root/"
done
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
mkdir -p "$root$(dirname "$ld")"
cp -a "$ld" "$root$ld"

# Generators cost seconds under emulation and have nothing to do here;
# systemd-debug-generator stays, for systemd.mask= on the command line.
for g in /lib/systemd/system-generators/* /usr/lib/systemd/system-generators/*; do
	[ -e "$g" ] || continue
	case ${g##*/} in systemd-debug-generator) continue ;; esac
	ln -sfn /dev/null "$root/etc/systemd/system-generators/${g##*/}"
done

# rdma-core's rules start rdma-hw.target, rdma-ndd and module loads.
for r in 60-rdma-ndd.rules 90-rdma-hw-modules.rules 90-rdma-ulp-modules.rules \
	90-rdma-umad.rules 90-iwpmd.rules; do
	ln -sfn /dev/null "$root/etc/udev/rules.d/$r"
done

cat > "$root/etc/systemd/journald.conf.d/rt-vm.conf" << 'EOF'
[Journal]
Storage=volatile
EOF
if [ -n "${RT_VM_VERBOSE:-}" ]; then
	printf 'ForwardToConsole=yes\nMaxLevelConsole=info\n' \
		>> "$root/etc/systemd/journald.conf.d/rt-vm.conf"
fi
cat > "$root/etc/systemd/system.conf.d/rt-vm.conf" << 'EOF'
[Manager]
ShowStatus=no
DefaultTimeoutStartSec=120s
EOF

# Unit directories: the host's, plus RT_VM_STAGE's.
: > "$tmp/stage/local.list"
for d in etc/systemd/system usr/lib/systemd/system; do
	mkdir -p "$local/$d"
	cp -a "/$d/." "$local/$d/"
	if [ -n "${RT_VM_STAGE:-}" ] && [ -d "$RT_VM_STAGE/$d" ]; then
		cp -a "$RT_VM_STAGE/$d/." "$local/$d/"
	fi
	echo "$d" >> "$tmp/stage/local.list"
done
if [ -n "${RT_VM_STAGE:-}" ]; then
	(cd "$RT_VM_STAGE" && find . -path ./etc/systemd/system -prune -o \
		-path ./usr/lib/systemd/system -prune -o -print0 |
		cpio --null -pdm --quiet "$root")
fi

# What a boot of the test needs beyond sysinit.target is started by the
# target; the rest of sysinit's usual units is masked (slow under
# emulation, or meaningless on a read-only shared root).
sysd=$local/etc/systemd/system
for u in systemd-firstboot.service systemd-pstore.service systemd-timesyncd.service \
	systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
	systemd-journal-flush.service systemd-machine-id-commit.service \
	systemd-pcrphase.service systemd-pcrphase-sysinit.service systemd-repart.service \
	systemd-random-seed.service systemd-update-utmp.service \
	systemd-ask-password-console.path systemd-ask-password-wall.path \
	dev-hugepages.mount dev-mqueue.mount sys-fs-fuse-connections.mount \
	systemd-remount-fs.service systemd-hwdb-update.service ldconfig.service \
	systemd-sysusers.service systemd-tmpfiles-setup.service \
	systemd-tmpfiles-clean.timer systemd-boot-system-token.service \
	cryptsetup.target veritysetup.target integritysetup.target \
	${RT_VM_MASK:-}; do
	ln -sfn /dev/null "$sysd/$u"
done

cat > "$sysd/rt-test.target" << 'EOF'
[Unit]
Description=rocetune VM test
Requires=sysinit.target
After=sysinit.target
Wants=rt-test.service
AllowIsolate=yes
EOF
# The runner script is read from the work tree (mounted over 9p).
. "$out/rt.env"
cat > "$sysd/rt-test.service" << EOF
[Unit]
Description=rocetune VM test command
DefaultDependencies=no
After=sysinit.target systemd-udev-trigger.service
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/sh $RT_WORK/selftests/vm/systemd-exec.sh
StandardOutput=journal+console
StandardError=inherit
TimeoutStartSec=infinity
EOF

(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet)
