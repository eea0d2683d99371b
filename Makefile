# SPDX-License-Identifier: GPL-2.0
# Minimal bootstrap; the foundation issue extends this.
KREL ?= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n1 | sed 's,.*/linux-headers-,,')
KDIR ?= /usr/src/linux-headers-$(KREL)

all:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
