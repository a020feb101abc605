# Rubicon top-level Makefile.
#
#   make          build the package and the rubicon shell into build/
#   make check    build, run every unit and tcltest suite (also under
#                 ASan/UBSan and valgrind), print "N passed, N failed"
#   make demo     run examples/demo.tcl on the bundled real SRT trace
#   make bench    speed against hand-written C and common tools
#   make fuzz     run the fuzz harnesses for a bounded time
#   make install  into $(PREFIX)/lib/rubicon$(VERSION) and $(PREFIX)/bin
#
# A fresh clone needs only this file: it installs missing Debian packages
# (as root) and runs autoconf and configure when needed.

VERSION   = 0.1
PREFIX   ?= /usr/local
BUILD    ?= build
SHARED   ?= ../shared
OPT      ?= -O2
SANITIZE ?=

-include config.mk

SRCS      := $(shell find generic -name '*.c' | sort)
OBJS      := $(SRCS:%.c=$(BUILD)/obj/%.o)
HDRS      := $(shell find generic -name '*.h')
UNITSRC   := $(sort $(wildcard tests/unit/test_*.c))
UNITBIN   := $(UNITSRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBTCL    := $(sort $(wildcard library/*.tcl))

INCS      = -Igeneric $(TCL_CFLAGS)
CFLAGS_ALL = $(OPT) -g -std=gnu11 -fPIC -Wall -Wextra -Wno-unused-parameter \
	     -Wno-missing-field-initializers -D_GNU_SOURCE -DUSE_TCL_STUBS \
	     $(SANITIZE) $(INCS) $(XLSX_CFLAGS) $(STARDUST_CFLAGS) $(MPI_CFLAGS) $(CFLAGS)
LDLIBS_ALL = -lz -lbz2 -lm -lpthread $(XLSX_LIBS) $(STARDUST_LIBS) $(MPI_LIBS)

.PHONY: all deps check unit tcltest demo bench fuzz install clean distclean \
	check-asan check-valgrind

all: $(BUILD)/librubicon.so $(BUILD)/pkgIndex.tcl $(BUILD)/rubicon $(BUILD)/plugin/liblargeio.so

config.mk: configure config.mk.in
	@sh scripts/ensure-deps.sh
	./configure -q

configure: configure.ac
	@sh scripts/ensure-deps.sh
	autoconf

deps:
	@sh scripts/ensure-deps.sh

$(BUILD)/obj/%.o: %.c $(HDRS) config.mk
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

# The package's Tcl half is compiled into the library, so the shared
# object and the shell need no library path at run time.
$(BUILD)/gen/libscript.c: $(LIBTCL) scripts/embed.tcl
	@mkdir -p $(dir $@)
	@tclsh scripts/embed.tcl $@ $(LIBTCL)

$(BUILD)/obj/libscript.o: $(BUILD)/gen/libscript.c
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/librubicon.so: $(OBJS) $(BUILD)/obj/libscript.o
	@echo "LD $@"
	@$(CC) -shared $(SANITIZE) -o $@ $^ $(TCL_STUBLIBS) $(LDLIBS_ALL)

$(BUILD)/pkgIndex.tcl: library/pkgIndex.tcl.in
	@sed -e 's/@VERSION@/$(VERSION)/' $< > $@

$(BUILD)/rubicon: unix/rbMain.c $(OBJS) $(BUILD)/obj/libscript.o
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -UUSE_TCL_STUBS -o $@ $^ $(TCL_LIBS) $(TCL_STUBLIBS) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/rbtest.h $(OBJS) $(BUILD)/obj/libscript.o
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -UUSE_TCL_STUBS $(CHECK_CFLAGS) -Itests/unit -o $@ $< \
	    $(OBJS) $(BUILD)/obj/libscript.o $(TCL_LIBS) $(TCL_STUBLIBS) $(CHECK_LIBS) $(LDLIBS_ALL)

# The example plugin, built as an outside author would build it.
$(BUILD)/plugin/liblargeio.so: examples/plugin/largeIo.c generic/rubicon.h generic/rubiconDecls.h
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(MAKE) --no-print-directory -s -C examples/plugin OUT=$(CURDIR)/$(BUILD)/plugin \
	    CC="$(CC) $(SANITIZE)" TCL_INCLUDE="$(patsubst -I%,%,$(TCL_CFLAGS))"

unit: all $(UNITBIN)
	@sh tests/run-unit.sh $(BUILD) $(UNITBIN)

tcltest: all
	@sh tests/run-tcltest.sh $(BUILD) $(SHARED)

# The full check: normal build, then the same suites under ASan/UBSan in
# build-asan/, then the C units under valgrind memcheck.
check: all $(UNITBIN)
	@rm -f $(BUILD)/results.txt
	@sh tests/run-unit.sh $(BUILD) $(UNITBIN) | tee -a $(BUILD)/results.txt
	@sh tests/run-tcltest.sh $(BUILD) $(SHARED) | tee -a $(BUILD)/results.txt
	@$(MAKE) --no-print-directory check-asan RESULTS=$(CURDIR)/$(BUILD)/results.txt
	@$(MAKE) --no-print-directory check-valgrind RESULTS=$(CURDIR)/$(BUILD)/results.txt
	@sh tests/summary.sh $(BUILD)/results.txt

check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	    SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    all asan-units
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    sh tests/run-unit.sh build-asan $(patsubst $(BUILD)/%,build-asan/%,$(UNITBIN)) | sed 's/^/asan /' | tee -a $(RESULTS)
	@LD_PRELOAD=$$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \
	    sh tests/run-tcltest.sh build-asan $(SHARED) | sed 's/^/asan /' | tee -a $(RESULTS)

asan-units: $(UNITBIN)

check-valgrind: $(UNITBIN)
	@VALGRIND=1 sh tests/run-unit.sh $(BUILD) $(UNITBIN) | sed 's/^/valgrind /' | tee -a $(RESULTS)

demo: all
	@test -f $(SHARED)/data/srt/hourly.03126.srt.bz2 || \
	    { echo "demo: the bundled trace $(SHARED)/data/srt/hourly.03126.srt.bz2 is missing"; exit 1; }
	@mkdir -p $(BUILD)/demo
	cd $(BUILD)/demo && ../rubicon ../../examples/demo.tcl ../../$(SHARED)/data/srt/hourly.03126.srt.bz2
	@echo "demo: reports written to $(BUILD)/demo/"

bench: all
	@sh tests/bench/run.sh $(BUILD)

fuzz:
	@sh tests/fuzz/run.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/lib/rubicon$(VERSION) $(DESTDIR)$(PREFIX)/bin
	cp $(BUILD)/librubicon.so $(BUILD)/pkgIndex.tcl $(DESTDIR)$(PREFIX)/lib/rubicon$(VERSION)/
	cp $(BUILD)/rubicon $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build build-asan

distclean: clean
	rm -rf config.mk configure config.log config.status autom4te.cache
