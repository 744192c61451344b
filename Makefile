# SPDX-License-Identifier: GPL-2.0
#
# rigc, the Rust driver for the Intel(R) I225/I226 controllers.
#

ifneq ($(KERNELRELEASE),)

obj-$(CONFIG_RIGC) += rigc.o
rigc-y := igc.o

else

# Outside kbuild: developer targets. They drive the lab (a Debian trixie root
# with the kernel tree and QEMU, see README.md); the kernel build itself is
# always done by kbuild inside it.

.PHONY: all run test kernel kunit

all: kernel

run:
	./lab/run

test:
	./lab/test

kernel:
	./lab/kernel

kunit:
	./lab/kunit

endif
