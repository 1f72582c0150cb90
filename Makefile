# SPDX-License-Identifier: GPL-2.0
#
# sroce: out-of-tree build and the project's entry points.
#   make                   build sroce.ko for the running kernel
#   make TARGET=deb12|deb13|bpo   build for a test target (out/TARGET/)
#   make check             the whole test suite (README)
#   make check TARGETS=deb12      the quick form, one target
#   make check FULL=1      every suite on every target (default: the heavy
#                          suites on bpo and debug only)
#   make bench             sroce against rdma_rxe, perftest, results/ (README)
#   make bench QUICK=1     a few points, for day-to-day work (MTUS="1500 9000",
#                          PLACES="irq apart": where perftest runs,
#                          QPS="1 4": the QP counts of the bandwidth tests,
#                          REPS=3: runs per point, the median reported,
#                          SECTIONS="perftest msgrate qps nvmf": what runs;
#                          nvmf: fio through nvme-rdma on sroce and
#                          rdma_rxe and nvme-loop (Documentation/performance.rst)
#   make lint              checkpatch --strict, kernel-doc, sparse, W=1
#   make demo              two guests, sroce on their link (README)
#   make install           install into /lib/modules/$(uname -r), and the
#                          modprobe rule keeping rdma_rxe out while sroce is in
#   make uninstall         remove both
#   make dist              out/sroce-VERSION.tar.gz, the tree DKMS builds
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
TARGET ?=

ifeq ($(TARGET),)
all: module
module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
else
all module:
	scripts/build.sh $(TARGET)
endif

install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)
	install -D -m 644 modprobe.d/sroce.conf $(DESTDIR)/etc/modprobe.d/sroce.conf

uninstall:
	rm -f /lib/modules/$(KVER)/updates/drivers/sroce/sroce.ko* $(DESTDIR)/etc/modprobe.d/sroce.conf
	depmod -a $(KVER)

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
dist:
	mkdir -p out
	git archive --prefix=sroce-$(VERSION)/ -o out/sroce-$(VERSION).tar.gz HEAD

check:
	scripts/check.sh $(if $(TARGETS),--targets "$(TARGETS)") $(if $(FULL),--full)

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh $(if $(QUICK),--quick) $(if $(TARGETS),--targets "$(TARGETS)") \
		$(if $(MTUS),--mtus "$(MTUS)") $(if $(PLACES),--places "$(PLACES)") \
		$(if $(QPS),--qps "$(QPS)") $(if $(REPS),--reps "$(REPS)") \
		$(if $(SECTIONS),--sections "$(SECTIONS)")

lint:
	scripts/deps.sh
	scripts/setup-targets.sh deb12 deb13 bpo
	scripts/lint.sh

setup:
	scripts/deps.sh
	scripts/setup-targets.sh $(TARGETS)

clean:
	rm -rf out
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name modules.order -o -name Module.symvers \) \
		-not -path './.git/*' -delete

.PHONY: all module install uninstall dist check demo bench lint setup clean
